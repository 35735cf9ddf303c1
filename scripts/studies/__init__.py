"""The studies behind the docs: tables, plots and fits, each a command line."""
