"""Prometheus metrics of the service (``GET /metrics``).

:mod:`definitions` declares every metric the service updates;
:mod:`http` measures each request, :mod:`database` the transactions and
the connection pools, :mod:`capacity` reads the capacity gauges for a
scrape, :mod:`exposition` writes them all in the text format and
:mod:`multiprocess` keeps the files of ``prometheus_client``'s
multiprocess mode, which counts every worker of a WSGI server.
"""
