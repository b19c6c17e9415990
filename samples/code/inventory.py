"""A small warehouse inventory: items, stock levels and reorder rules.

Used by chunktui's tests as a realistic Python file: decorators, nested
classes, docstrings, and comments in English and Chinese.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections import defaultdict
from typing import Iterable, Iterator

log = logging.getLogger(__name__)

# 默认的补货阈值（件）
DEFAULT_REORDER_LEVEL = 10


def audited(action: str):
    """Log every call of the wrapped method with the item it touches."""

    def wrap(fn):
        @functools.wraps(fn)
        def inner(self, sku, *args, **kwargs):
            log.info("%s %s", action, sku)
            return fn(self, sku, *args, **kwargs)

        return inner

    return wrap


@dataclasses.dataclass(frozen=True)
class Item:
    """One kind of thing the warehouse holds."""

    sku: str
    name: str
    unit_price: float
    # 商品所在的货架编号
    shelf: str = "A1"

    @property
    def label(self) -> str:
        return f"{self.sku} {self.name} ({self.shelf})"


class OutOfStock(Exception):
    """Raised when more units are taken than the warehouse holds."""

    def __init__(self, sku: str, wanted: int, held: int):
        super().__init__(f"{sku}: wanted {wanted}, only {held} held")
        self.sku = sku
        self.wanted = wanted
        self.held = held


class Inventory:
    """Stock levels per SKU, with a history of every change."""

    class Movement:
        """One change of stock: positive for a delivery, negative for a sale."""

        __slots__ = ("sku", "delta", "note")

        def __init__(self, sku: str, delta: int, note: str = ""):
            self.sku = sku
            self.delta = delta
            self.note = note

        def __repr__(self) -> str:
            sign = "+" if self.delta >= 0 else ""
            return f"Movement({self.sku} {sign}{self.delta} {self.note!r})"

    def __init__(self, items: Iterable[Item] = ()):
        self._items: dict[str, Item] = {i.sku: i for i in items}
        self._stock: defaultdict[str, int] = defaultdict(int)
        self._history: list[Inventory.Movement] = []
        self.reorder_level = DEFAULT_REORDER_LEVEL

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Item]:
        return iter(self._items.values())

    @audited("register")
    def register(self, item: Item) -> None:
        """Make a new item known; its stock starts at zero."""
        if item.sku in self._items:
            raise ValueError(f"{item.sku} is already registered")
        self._items[item.sku] = item

    @audited("receive")
    def receive(self, sku: str, units: int, note: str = "delivery") -> int:
        """Add delivered units and return the new stock level."""
        self._require(sku)
        if units <= 0:
            raise ValueError("a delivery brings at least one unit")
        self._stock[sku] += units
        self._history.append(Inventory.Movement(sku, units, note))
        return self._stock[sku]

    @audited("take")
    def take(self, sku: str, units: int, note: str = "sale") -> int:
        """Remove sold units; refuse to go below zero."""
        self._require(sku)
        held = self._stock[sku]
        if units > held:
            # 库存不足时不做任何修改，直接报错
            raise OutOfStock(sku, units, held)
        self._stock[sku] = held - units
        self._history.append(Inventory.Movement(sku, -units, note))
        return self._stock[sku]

    def stock(self, sku: str) -> int:
        return self._stock.get(sku, 0)

    def value(self) -> float:
        """What everything on the shelves is worth at unit price."""
        return sum(self._items[s].unit_price * n for s, n in self._stock.items())

    def to_reorder(self) -> list[Item]:
        """Items at or below the reorder level, lowest stock first."""
        low = [i for i in self._items.values() if self.stock(i.sku) <= self.reorder_level]
        return sorted(low, key=lambda i: (self.stock(i.sku), i.sku))

    def history(self, sku: str | None = None) -> list[Movement]:
        if sku is None:
            return list(self._history)
        return [m for m in self._history if m.sku == sku]

    def _require(self, sku: str) -> None:
        if sku not in self._items:
            raise KeyError(f"unknown item {sku}: register it first")


def report(inventory: Inventory) -> str:
    """A plain-text stock report, one line per item."""
    lines = []
    for item in sorted(inventory, key=lambda i: i.sku):
        held = inventory.stock(item.sku)
        flag = " 需要补货" if held <= inventory.reorder_level else ""
        lines.append(f"{item.label:<40} {held:>6}{flag}")
    lines.append(f"total value: {inventory.value():.2f}")
    return "\n".join(lines)


if __name__ == "__main__":
    inv = Inventory([Item("B-100", "bolt", 0.12), Item("N-200", "nut", 0.05, shelf="B3")])
    inv.receive("B-100", 500)
    inv.take("B-100", 120)
    inv.receive("N-200", 8)
    print(report(inv))
