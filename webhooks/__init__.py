"""Webhooks: where a user's events go, how each kind of receiver is spoken to, and the workers
that deliver them (docs/fdr/0038). Depends on core only; the app wires it in (REST, CLI, serve)."""
