"""Subcommands of ``bdi-monitor``; each module has ``register(subparsers)``."""
