"""Testing aids that ship with gbot: a local FIBS-compatible server (:mod:`.fibs_server`) and
the measuring code of ``gbot bench`` and the benchmark scripts (:mod:`.bench`).

Nothing here is used by the bot itself; tests and developers import it explicitly.
"""

from __future__ import annotations
