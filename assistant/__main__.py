"""``python -m assistant`` runs the command line."""

from assistant.cli import main

raise SystemExit(main())
