"""A stand-in for a study's API function: the command-line tests check what it is called with."""

from __future__ import annotations

from typing import Any


class Recorder:
    """Stands in for the API: records the call and returns a result."""

    def __init__(self, result: Any) -> None:
        self.result = result
        self.args: tuple[Any, ...] = ()
        self.kwargs: dict[str, Any] = {}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.args, self.kwargs = args, kwargs
        return self.result

    def options(self) -> dict[str, Any]:
        """The call's options but the progress callback and the command line."""
        return {k: v for k, v in self.kwargs.items() if k not in ("progress", "command")}
