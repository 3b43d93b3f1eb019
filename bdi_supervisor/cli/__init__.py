"""Command-line interface of ``bdi-supervisor``: one module per subcommand."""
