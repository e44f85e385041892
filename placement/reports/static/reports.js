// The operators' page: reads /reports/capacity, /reports/usage,
// /reports/headroom, /reports/explain and /reports/audit (relative to
// this page) and draws them. No library.
'use strict';

const HOSTS_SHOWN = 20;
const tokenInput = document.getElementById('token');
const statusLine = document.getElementById('status');

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    node.setAttribute(name, value);
  }
  for (const child of children) {
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function num(value, field) {
  return el('td', {class: 'num', 'data-field': field},
            value === undefined ? '' : value.toLocaleString('en-US'));
}

async function getJSON(path, headers) {
  const response = await fetch(path, {headers: {
    'X-Auth-Token': tokenInput.value, 'Accept': 'application/json',
    ...headers}});
  const body = await response.json();
  if (!response.ok) {
    const error = (body.errors || [{}])[0];
    throw new Error(`${response.status} ${error.detail || error.title}`);
  }
  return body;
}

// A bar as long as the capacity: used up to the raw capacity, used
// beyond it (overcommit), free; a line marks the raw capacity.
function bar(numbers) {
  const svgNS = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(svgNS, 'svg');
  svg.setAttribute('class', 'bar');
  svg.setAttribute('viewBox', '0 0 1000 14');
  svg.setAttribute('preserveAspectRatio', 'none');
  const total = Math.max(numbers.capacity, numbers.usage, 1);
  const raw = numbers.raw_capacity === undefined
    ? numbers.capacity : numbers.raw_capacity;
  const inRaw = Math.min(numbers.usage, raw);
  const parts = [['used', inRaw], ['over', numbers.usage - inRaw],
                 ['free', Math.max(numbers.capacity - numbers.usage, 0)]];
  let x = 0;
  for (const [kind, amount] of parts) {
    const rect = document.createElementNS(svgNS, 'rect');
    const width = 1000 * amount / total;
    rect.setAttribute('class', kind);
    rect.setAttribute('x', x);
    rect.setAttribute('width', width);
    rect.setAttribute('height', 14);
    svg.append(rect);
    x += width;
  }
  if (numbers.raw_capacity !== undefined) {
    const line = document.createElementNS(svgNS, 'line');
    const at = 1000 * raw / total;
    line.setAttribute('class', 'raw');
    line.setAttribute('x1', at);
    line.setAttribute('x2', at);
    line.setAttribute('y1', 0);
    line.setAttribute('y2', 14);
    line.setAttribute('stroke-width', 4);
    svg.append(line);
  }
  const title = document.createElementNS(svgNS, 'title');
  title.textContent = `${numbers.usage} of ${numbers.capacity} used`;
  svg.append(title);
  return el('td', {class: 'bar-cell'}, svg);
}

function numberCells(numbers) {
  return [num(numbers.capacity, 'capacity'),
          num(numbers.raw_capacity, 'raw_capacity'),
          num(numbers.usage, 'usage'),
          num(numbers.capacity - numbers.usage, 'free'),
          bar(numbers)];
}

function resources(document_) {
  const found = [];
  for (const service of document_.cluster.services) {
    for (const resource of service.resources) {
      found.push([service, resource]);
    }
  }
  return found;
}

function fill(tableId, rows) {
  const body = document.querySelector(`#${tableId} tbody`);
  body.replaceChildren(...rows);
}

// A class can be a resource of two services (its areas): rows name both.
function drawCapacity(capacity) {
  fill('capacity-table', resources(capacity).map(([service, resource]) =>
    el('tr', {'data-service': service.type, 'data-resource': resource.name},
       el('td', {}, resource.name + (resource.unit ? ` (${resource.unit})` : '')),
       el('td', {}, service.type), ...numberCells(resource))));
  const rows = [];
  const zones = new Set();
  for (const [, resource] of resources(capacity)) {
    for (const zone of resource.per_availability_zone) {
      zones.add(zone.name);
    }
  }
  for (const zoneName of zones) {
    for (const [service, resource] of resources(capacity)) {
      const zone = resource.per_availability_zone.find(
        (entry) => entry.name === zoneName);
      if (zone) {
        rows.push(el('tr', {'data-zone': zoneName,
                            'data-service': service.type,
                            'data-resource': resource.name},
                     el('td', {}, zoneName), el('td', {}, resource.name),
                     el('td', {}, service.type), ...numberCells(zone)));
      }
    }
  }
  fill('zone-table', rows);
  drawHosts(capacity);
}

// A host's fullness is that of its fullest class (usage / capacity).
function drawHosts(capacity) {
  const hosts = new Map();
  for (const [, resource] of resources(capacity)) {
    for (const sub of resource.subcapacities || []) {
      const share = sub.capacity ? sub.usage / sub.capacity : 0;
      const host = hosts.get(sub.uuid) ||
        {name: sub.name, zone: sub.zone, share: -1, resource: ''};
      if (share > host.share) {
        Object.assign(host, {share, resource: resource.name});
      }
      hosts.set(sub.uuid, host);
    }
  }
  const sorted = [...hosts.values()].sort(
    (a, b) => b.share - a.share || a.name.localeCompare(b.name));
  const row = (host) => el('tr', {'data-host': host.name},
    el('td', {}, host.name), el('td', {}, host.zone),
    el('td', {class: 'num'}, host.resource),
    el('td', {class: 'num', 'data-field': 'share'},
       `${(100 * host.share).toFixed(1)}%`));
  fill('fullest', sorted.slice(0, HOSTS_SHOWN).map(row));
  fill('emptiest', sorted.reverse().slice(0, HOSTS_SHOWN).map(row));
}

async function drawUsage() {
  const select = document.getElementById('usage-sort');
  const sort = select.value;
  const usage = await getJSON(
    'usage' + (sort ? `?sort=${encodeURIComponent(sort)}` : ''));
  const classes = new Set();
  for (const project of usage.projects) {
    for (const service of project.services) {
      for (const resource of service.resources) classes.add(resource.name);
    }
  }
  const names = [...classes].sort();
  if (!select.options.length) {
    select.append(el('option', {value: ''}, 'project id'),
                  ...names.map((name) => el('option', {value: name}, name)));
  }
  document.querySelector('#usage-table thead').replaceChildren(
    el('tr', {}, el('th', {}, 'Project'),
       ...names.map((name) => el('th', {class: 'num'}, name))));
  fill('usage-table', usage.projects.map((project) => {
    const used = {};  // per class, summed over its services
    for (const service of project.services) {
      for (const resource of service.resources) {
        used[resource.name] = (used[resource.name] || 0) + resource.usage;
      }
    }
    return el('tr', {'data-project': project.id}, el('td', {}, project.id),
              ...names.map((name) => num(used[name] || 0, name)));
  }));
}

async function askHeadroom(event) {
  event.preventDefault();
  const query = new URLSearchParams();
  query.append('resources',
               document.getElementById('headroom-resources').value.trim());
  const required = document.getElementById('headroom-required').value.trim();
  const memberOf = document.getElementById('headroom-member-of').value.trim();
  if (required) query.append('required', required);
  if (memberOf) query.append('member_of', memberOf);
  try {
    const {headroom} = await getJSON(`headroom?${query}`);
    document.getElementById('headroom-count').textContent = headroom.count;
    document.getElementById('headroom-providers').textContent =
      headroom.providers;
    fill('headroom-zones', headroom.per_availability_zone.map((zone) =>
      el('tr', {'data-zone': zone.name}, el('td', {}, zone.name),
         num(zone.count, 'count'), num(zone.providers, 'providers'))));
    document.getElementById('headroom-counted').textContent =
      'Counted: ' + headroom.counted;
    document.getElementById('headroom-not-counted').textContent =
      'Not counted: ' + headroom.not_counted;
    document.getElementById('headroom-result').hidden = false;
    showStatus('');
  } catch (error) {
    showStatus(error.message, true);
  }
}

// A bar as long as the first stage of its funnel, filled as far as
// ``count`` passes.
function funnelBar(count, first) {
  const cell = bar({capacity: Math.max(first, count), usage: count});
  cell.querySelector('title').textContent = `${count} of ${first} pass`;
  return cell;
}

function funnelRows(of, stages) {
  const first = stages.length ? stages[0].count : 0;
  return stages.map((stage) =>
    el('tr', {'data-of': of, 'data-stage': stage.stage},
       el('td', {}, of), el('td', {}, stage.stage),
       num(stage.count, 'count'), funnelBar(stage.count, first)));
}

// The query of GET /allocation_candidates: the granular groups as
// written (a query string), the unsuffixed group from its fields; read
// at the latest microversion.
async function askExplain(event) {
  event.preventDefault();
  const query = new URLSearchParams(
    document.getElementById('explain-groups').value.trim());
  for (const [name, id] of [['resources', 'explain-resources'],
                            ['required', 'explain-required'],
                            ['member_of', 'explain-member-of']]) {
    const value = document.getElementById(id).value.trim();
    if (value) query.append(name, value);
  }
  try {
    const {explain} = await getJSON(
      `explain?${query}`, {'OpenStack-API-Version': 'placement latest'});
    document.getElementById('explain-count').textContent = explain.candidates;
    document.getElementById('explain-trees').textContent = explain.trees;
    const rows = funnelRows('trees', explain.funnel);
    for (const group of explain.groups) {
      const resources = Object.entries(group.resources)
        .map(([name, amount]) => `${name}:${amount}`).join(',');
      rows.push(...funnelRows(
        `group ${group.suffix || '(unsuffixed)'} ${resources}`,
        group.funnel));
    }
    fill('explain-funnel', rows);
    const misses = document.getElementById('explain-misses');
    misses.replaceChildren(...(explain.misses.length
      ? explain.misses.map((miss) =>
        el('li', {'data-kind': miss.kind}, miss.sentence))
      : [el('li', {}, 'none: each provider or tree fails more than one '
                      + 'condition, or none fails')]));
    document.getElementById('explain-counted').textContent =
      'Counted: ' + explain.counted;
    document.getElementById('explain-result').hidden = false;
    showStatus('');
  } catch (error) {
    showStatus(error.message, true);
  }
}

// One row per finding: its count, highlighted when not 0. A policy
// may allow the other reports and refuse the audit: the panel then
// says why, and the rest of the page stands.
async function drawAudit() {
  const summary = document.getElementById('audit-summary');
  let audit;
  try {
    ({audit} = await getJSON('audit'));
  } catch (error) {
    summary.textContent = `Not shown: ${error.message}`;
    summary.className = 'error';
    fill('audit-table', []);
    return;
  }
  const findings = Object.entries(audit.findings);
  const found = findings.filter(([, finding]) => finding.count).length;
  summary.className = '';
  summary.textContent = audit.clean
    ? 'Nothing found: the data adds up.'
    : `${found} of ${findings.length} findings have something to show.`;
  fill('audit-table', findings.map(([name, finding]) =>
    el('tr', {'data-finding': name, class: finding.count ? 'found' : ''},
       el('td', {}, name), num(finding.count, 'count'),
       el('td', {}, finding.counts),
       el('td', {class: 'note'}, finding.description))));
}

function showStatus(text, isError) {
  statusLine.textContent = text;
  statusLine.className = isError ? 'error' : '';
}

async function load(event) {
  if (event) event.preventDefault();
  sessionStorage.setItem('placement-token', tokenInput.value);
  showStatus('loading...');
  try {
    drawCapacity(await getJSON('capacity?detail'));
    await drawUsage();
    await drawAudit();
    showStatus(`loaded ${new Date().toLocaleTimeString()}`);
    document.body.dataset.loaded = 'true';
  } catch (error) {
    showStatus(error.message, true);
  }
}

document.getElementById('token-form').addEventListener('submit', load);
document.getElementById('headroom-form').addEventListener('submit',
                                                          askHeadroom);
document.getElementById('explain-form').addEventListener('submit',
                                                         askExplain);
document.getElementById('usage-sort').addEventListener('change', () =>
  drawUsage().catch((error) => showStatus(error.message, true)));
tokenInput.value = sessionStorage.getItem('placement-token') || '';
if (tokenInput.value) load();
