"""gbot over HTTP: a wildbg-compatible JSON API, gbot's own API and a small web page.

Needs the ``web`` extra (``pip install gbot[web]``: Starlette, uvicorn and pydantic).
:mod:`.models` declares the requests and replies; :mod:`.service` answers the questions without
HTTP; :mod:`.app` is the ASGI application (``create_app``); :mod:`.openapi` its OpenAPI document,
made from the models; ``static/`` the page. ``gbot web`` serves it.
"""

from __future__ import annotations

__all__ = ["create_app"]


def __getattr__(name: str) -> object:
    if name == "create_app":
        from gbot.adapters.web.app import create_app

        return create_app
    raise AttributeError(name)
