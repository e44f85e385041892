"""Text tables of the console commands (reports, audit)."""

import prettytable


def table(headers, rows):
    """A text table; columns of numbers align right."""
    printed = prettytable.PrettyTable(headers)
    printed.align = 'l'
    for row in rows:
        printed.add_row(row)
    for index, header in enumerate(headers):
        if all(isinstance(row[index], int) or row[index] == ''
               for row in rows):
            printed.align[header] = 'r'
    return printed.get_string()
