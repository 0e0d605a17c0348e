"""hypothesis-jsonschema 0.23 (under schemathesis 3) draws objects with `many().more()`, the
API hypothesis had before its `with many(...) as elements: for _ in elements:` form; the
installed hypothesis (6.170) has only the new form, so every object schema failed with
"'many' object has no attribute 'more'". This adapter gives hypothesis-jsonschema's module
alone the old call on top of the new class. Drop it once hypothesis-jsonschema follows.
"""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis.internal.conjecture import utils as conjecture_utils
from hypothesis_jsonschema import _from_schema

_END = object()


class LegacyMany(conjecture_utils.many):
    def more(self) -> bool:
        if self._depth is None:
            self.__enter__()
            self._elements = iter(self)
        if next(self._elements, _END) is _END:
            self.__exit__(None)
            return False
        return True


def install() -> None:
    if hasattr(conjecture_utils.many, "more") or isinstance(_from_schema.cu, SimpleNamespace):
        return
    _from_schema.cu = SimpleNamespace(**{**vars(conjecture_utils), "many": LegacyMany})
