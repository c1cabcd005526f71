"""Summarise a shop's order export: revenue per day and the best-selling products.

Reads a CSV with the columns order_id, placed_at (ISO 8601), sku, quantity, unit_price and
currency, skips rows it cannot read (and says how many), and prints a small report.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path


@dataclass(frozen=True)
class OrderLine:
    order_id: str
    placed_on: date
    sku: str
    quantity: int
    unit_price: Decimal
    currency: str

    @property
    def total(self) -> Decimal:
        return self.unit_price * self.quantity


def read_lines(path: Path, rejected: list[int]) -> Iterator[OrderLine]:
    """The order lines of the export; the row numbers of unreadable rows go to `rejected`."""
    with path.open(newline="", encoding="utf-8") as handle:
        for row_number, row in enumerate(csv.DictReader(handle), start=2):
            try:
                yield OrderLine(
                    order_id=row["order_id"].strip(),
                    placed_on=datetime.fromisoformat(row["placed_at"]).date(),
                    sku=row["sku"].strip().upper(),
                    quantity=int(row["quantity"]),
                    unit_price=Decimal(row["unit_price"]),
                    currency=row["currency"].strip().upper(),
                )
            except (KeyError, ValueError, InvalidOperation):
                rejected.append(row_number)


def revenue_by_day(lines: Iterable[OrderLine], currency: str) -> dict[date, Decimal]:
    totals: dict[date, Decimal] = defaultdict(Decimal)
    for line in lines:
        if line.currency == currency:
            totals[line.placed_on] += line.total
    return dict(sorted(totals.items()))


def best_sellers(lines: Iterable[OrderLine], top: int) -> list[tuple[str, int]]:
    sold: Counter[str] = Counter()
    for line in lines:
        sold[line.sku] += line.quantity
    return sold.most_common(top)


def format_report(days: dict[date, Decimal], products: list[tuple[str, int]], currency: str) -> str:
    width = max((len(sku) for sku, _ in products), default=3)
    out = [f"Revenue per day ({currency})"]
    out += [f"  {day:%a %d %b}  {amount:>12,.2f}" for day, amount in days.items()]
    out.append(f"  {'total':<10}  {sum(days.values(), Decimal()):>12,.2f}")
    out.append("")
    out.append("Best sellers")
    out += [f"  {rank:>2}. {sku:<{width}}  {count:>6} sold" for rank, (sku, count) in enumerate(products, 1)]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("export", type=Path, help="the orders CSV")
    parser.add_argument("--currency", default="EUR", help="count revenue in this currency only")
    parser.add_argument("--top", type=int, default=5, help="how many products to list")
    args = parser.parse_args(argv)

    rejected: list[int] = []
    try:
        lines = list(read_lines(args.export, rejected))
    except OSError as error:
        print(f"cannot read {args.export}: {error.strerror}", file=sys.stderr)
        return 1
    if not lines:
        print(f"{args.export} holds no readable order lines", file=sys.stderr)
        return 1

    print(format_report(revenue_by_day(lines, args.currency.upper()), best_sellers(lines, args.top), args.currency.upper()))
    if rejected:
        shown = ", ".join(map(str, rejected[:10])) + (" …" if len(rejected) > 10 else "")
        print(f"\nskipped {len(rejected)} unreadable row(s): {shown}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
