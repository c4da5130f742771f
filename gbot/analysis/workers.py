"""Worker processes that end with their parent: rollouts' and tournaments' child processes
(and the gnubg processes a tournament starts) never outlive the command that started them."""

from __future__ import annotations

import signal

__all__ = ["die_with_parent"]


def die_with_parent() -> None:  # pragma: no cover - runs in child processes
    """Ask Linux to SIGTERM this process when its parent dies (no orphaned gnubg or workers);
    nothing elsewhere."""
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)   # PR_SET_PDEATHSIG
    except Exception:
        pass
