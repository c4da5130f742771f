"""Adapters: gbot spoken over gnubg's external-player protocol, FIBS, UBGI and HTTP. Each
parses, asks the engine and formats; none decides anything of its own."""
