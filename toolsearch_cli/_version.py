"""The package version, in a module of its own: the package's ``__init__`` imports the whole public
API (catalog, search), so a module of that API reading the version from there would import its
own package in a cycle."""

__version__ = "0.1.0"
