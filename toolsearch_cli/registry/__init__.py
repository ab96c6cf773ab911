"""A shared tool registry on PostgreSQL, and the tool provider interface (issue 23).

* :mod:`.source`: ``[alias=]postgresql://…/db?namespace=NAME`` as a catalog source;
* :mod:`.store`: the schema, ``push`` (one transaction, by content hash), snapshot reads;
* :mod:`.provider`: the :class:`~.provider.ToolProvider` interface (``save``, ``get``, ``all``,
  ``search``, ``remove``, ``clear``), the in-memory provider and the PostgreSQL one;
* :mod:`.sync`: live sync of a running :class:`~toolsearch_cli.agent.ToolSearch` with a namespace;
* :mod:`.testing`: a test suite any provider can run.

psycopg is imported only when a registry is used (``pip install 'toolsearch-cli[registry]'``).
"""
