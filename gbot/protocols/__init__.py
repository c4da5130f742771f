"""Wire formats and protocol adapters: the ``board:`` line, gnubg's external player, FIBS."""
