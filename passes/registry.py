"""The registry of project passes: Python functions that `jaxc-opt` and the
front end schedule by name, next to the upstream MLIR passes.

A project pass is a function ``(op: ir.Operation, pass_: ExternalPass) -> None``
registered under its pipeline flag::

    @register_pass("jaxc-cleanup", "canonicalize, CSE and symbol DCE until nothing changes")
    def cleanup(op: ir.Operation, pass_: ExternalPass, *, max_iterations: int = 10) -> None:
        ...

Its keyword-only parameters are its options. Each needs a default, whose type
(bool, int, float or str) is the option's type; in a pipeline an option is
spelled with dashes: ``jaxc-cleanup{max-iterations=3}``. ``op_name`` restricts
the pass to one kind of op (``"func.func"``); without it the pass runs on
whatever op its place in the pipeline gives it. The pass reports a problem by
emitting an error at a location (``op.location.emit_error(...)``) and calling
``pass_.signal_pass_failure()``.

This module imports nothing but the standard library, so listing passes never
needs the compiled dialect.
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
from typing import Any, Callable

PassFunction = Callable[..., None]

_ARGUMENT_RE = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
_OPTION_TYPES = (bool, int, float, str)
_TRUE = {"true", "1", "on", "yes"}
_FALSE = {"false", "0", "off", "no"}


class PassOptionError(ValueError):
    """An option string that the pass cannot accept (unknown name, bad value)."""


@dataclasses.dataclass(frozen=True)
class PassOption:
    """One option of a project pass: a keyword-only parameter with a default."""

    name: str  # as written in a pipeline: max-iterations
    param: str  # the Python parameter: max_iterations
    type: type
    default: Any

    def convert(self, text: str | None) -> Any:
        """Turn the option's text (None when written without `=value`) into a value."""
        if self.type is bool:
            if text is None or text.lower() in _TRUE:
                return True
            if text.lower() in _FALSE:
                return False
            raise PassOptionError(f"option '{self.name}' expects true or false, got '{text}'")
        if text is None:
            raise PassOptionError(f"option '{self.name}' needs a value: {self.name}=VALUE")
        text = _unquote(text)
        try:
            return int(text, 0) if self.type is int else self.type(text)
        except ValueError:
            raise PassOptionError(
                f"option '{self.name}' expects {self.type.__name__}, got '{text}'") from None


@dataclasses.dataclass(frozen=True)
class PassInfo:
    """A registered project pass."""

    argument: str  # the pipeline flag: jaxc-cleanup
    summary: str
    run: PassFunction
    op_name: str | None
    options: tuple[PassOption, ...]

    @property
    def name(self) -> str:
        """The pass's name in IR dumps, as MLIR's C++ passes have: JaxcCleanup."""
        return "".join(part.capitalize() for part in self.argument.split("-"))

    def parse_options(self, text: str | None) -> dict[str, Any]:
        """Parse ``key=value key2=value2`` into keyword arguments for `run`."""
        by_name = {option.name: option for option in self.options}
        values: dict[str, Any] = {}
        for key, value in split_options(text or ""):
            option = by_name.get(key) or by_name.get(key.replace("_", "-"))
            if option is None:
                known = ", ".join(sorted(by_name)) or "none"
                raise PassOptionError(
                    f"pass '{self.argument}' has no option '{key}' (its options: {known})")
            values[option.param] = option.convert(value)
        return values


_REGISTRY: dict[str, PassInfo] = {}


def register_pass(argument: str, summary: str,
                  op_name: str | None = None) -> Callable[[PassFunction], PassFunction]:
    """Register the decorated function as the project pass `argument`."""

    def decorate(run: PassFunction) -> PassFunction:
        if not _ARGUMENT_RE.fullmatch(argument):
            raise ValueError(f"pass argument '{argument}' must be lower-case words joined by '-'")
        if argument in _REGISTRY:
            raise ValueError(f"pass '{argument}' is registered twice")
        _REGISTRY[argument] = PassInfo(argument, summary, run, op_name, _options_of(run))
        return run

    return decorate


# flag prefix -> the module (relative to this package) that registers those
# passes, imported on the first lookup of such a flag: CPU compilations never
# import the GPU passes.
_REGISTERED_ON_DEMAND = {"jaxc-gpu-": ".gpu.register"}


def _register_on_demand(argument: str = "") -> None:
    """Import the modules whose passes `argument` may name (all for "")."""
    for prefix, module in _REGISTERED_ON_DEMAND.items():
        if argument.startswith(prefix) or not argument:
            importlib.import_module(module, __package__)


def lookup(argument: str) -> PassInfo | None:
    """The project pass with this pipeline flag, or None."""
    if argument not in _REGISTRY:
        _register_on_demand(argument)
    return _REGISTRY.get(argument)


def all_passes() -> list[PassInfo]:
    """Every project pass, sorted by flag."""
    _register_on_demand()
    return [_REGISTRY[name] for name in sorted(_REGISTRY)]


def _options_of(run: PassFunction) -> tuple[PassOption, ...]:
    """The keyword-only parameters of a pass function, as options."""
    options = []
    for param in inspect.signature(run).parameters.values():
        if param.kind is not inspect.Parameter.KEYWORD_ONLY:
            continue
        default = param.default
        if default is inspect.Parameter.empty or type(default) not in _OPTION_TYPES:
            raise ValueError(
                f"option '{param.name}' of pass function '{run.__name__}' needs a default "
                "of type bool, int, float or str")
        options.append(PassOption(param.name.replace("_", "-"), param.name, type(default), default))
    return tuple(options)


def split_options(text: str) -> list[tuple[str, str | None]]:
    """Split MLIR's pass-option syntax ``a=1 b="x y" c={p,q} d`` into (key, value) pairs.

    Values may be quoted ('...' or "...") or braced ({...}, nested); a key
    without ``=`` has the value None.
    """
    pairs: list[tuple[str, str | None]] = []
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        start = i
        while i < n and not text[i].isspace() and text[i] != "=":
            i += 1
        key = text[start:i]
        if i >= n or text[i] != "=":
            pairs.append((key, None))
            continue
        i += 1
        value_start = i
        i = _skip_value(text, i)
        pairs.append((key, text[value_start:i]))
    return pairs


def _skip_value(text: str, i: int) -> int:
    """Index just past the option value starting at `i` (quotes and braces respected)."""
    depth = 0
    while i < len(text):
        char = text[i]
        if char in "\"'":
            end = text.find(char, i + 1)
            if end < 0:
                raise PassOptionError(f"unterminated {char} in pass options")
            i = end + 1
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char.isspace() and depth <= 0:
            return i
        i += 1
    return i


def _unquote(text: str) -> str:
    """Strip one level of matching quotes or braces from an option value."""
    if len(text) >= 2 and (text[0], text[-1]) in {('"', '"'), ("'", "'"), ("{", "}")}:
        return text[1:-1]
    return text
