"""Starting contents of the demo's scratch projects (seeded where it is filler).

Sizes are chosen so both sides of the checkpoint gzip threshold occur (seed §9.4: about half
of the fulls are compressed): source files below 1024 UTF-16 units stay plain, READMEs, data
files and Chinese notes above it are stored gzip+base64. ``pytool/config.ini`` uses CRLF and
``pytool/notes/todo.md`` has no final newline (both survive snapshots byte for byte).
"""

from __future__ import annotations

import random

WEBSHOP_README = """# webshop

A tiny storefront used to try out the coding agent.

## Layout

- `src/cart.ts` — the cart model (add, remove, totals)
- `src/checkout.ts` — checkout flow and payment validation
- `src/format.ts` — money and date formatting helpers
- `src/styles.css` — the storefront styles

## Development

Install dependencies with `npm install`, then run `npm test`. The tests use the
built-in node test runner; there is no bundler. Keep functions small and pure:
the cart never touches the DOM and checkout never formats strings itself.

## Conventions

- Amounts are integers in cents. Never use floating point for money.
- Every exported function has a unit test next to it (`*.test.ts`).
- Errors are returned as `{ ok: false, error }`, never thrown across modules.
- Dates are ISO strings in UTC; formatting to local time happens in `format.ts`.

## Releasing

Bump the version in `package.json`, update the changelog and tag the commit.
The CI pipeline publishes the static build to the staging bucket; production is
promoted by hand after a smoke test of the checkout flow with a test card.
"""

CART_TS = """import { formatCents } from "./format";

export interface Item {
  sku: string;
  name: string;
  priceCents: number;
  qty: number;
}

export class Cart {
  private items: Item[] = [];

  add(item: Item): void {
    this.items.push(item);
  }

  remove(sku: string): void {
    this.items = this.items.filter((i) => i.sku !== sku);
  }

  totalCents(): number {
    return this.items.reduce((sum, i) => sum + i.priceCents * i.qty, 0);
  }

  summary(): string {
    return `${this.items.length} items, ${formatCents(this.totalCents())}`;
  }
}
"""

CHECKOUT_TS = """import { Cart } from "./cart";

export interface Payment {
  card: string;
  expiry: string;
}

export function checkout(cart: Cart, payment: Payment): { ok: boolean; error?: string } {
  // TODO: validate payment
  if (cart.totalCents() === 0) return { ok: false, error: "empty cart" };
  return { ok: true };
}
"""

FORMAT_TS = """export function formatCents(cents: number): string {
  return "$" + (cents / 100).toFixed(2);
}

export function formatDate(iso: string): string {
  return new Date(iso).toLocaleDateString();
}
"""

STYLES_CSS = """body {
  font-family: system-ui, sans-serif;
  margin: 0;
}

.cart {
  padding: 1rem;
  border: 1px solid #ddd;
}

.button {
  background: #0a66c2;
  color: white;
}
"""

PACKAGE_JSON = """{
  "name": "webshop",
  "version": "0.3.1",
  "private": true,
  "scripts": { "test": "node --test" }
}
"""

PYTOOL_CLI = '''"""pytool command line."""

import argparse

from pytool.util import slugify, word_count


def main(argv=None):
    parser = argparse.ArgumentParser(prog="pytool")
    parser.add_argument("command", choices=["slug", "count"])
    parser.add_argument("text")
    args = parser.parse_args(argv)
    if args.command == "slug":
        print(slugify(args.text))
    else:
        print(word_count(args.text))
    return 0
'''

PYTOOL_TEST = '''from pytool.util import slugify, word_count


def test_slugify():
    assert slugify("Hello World") == "hello-world"


def test_word_count():
    assert word_count("a b  c") == 3
'''

PYTOOL_CONFIG = "[server]\r\nhost = localhost\r\nport = 8080\r\n\r\n[log]\r\nlevel = info\r\n"
PYTOOL_TODO = "# todo\n\n- [ ] add a --json flag\n- [ ] release 0.2"

NOTES_WEEKLY = """# 周报（第 47 周）

## 项目 A
- 完成登录页改版，等待设计评审
- 修复了支付回调偶发超时的问题

## 项目 B
- 数据迁移脚本已跑通测试环境
- 下周计划：灰度发布 10%

## 杂项
- 整理了团队的代码评审清单
- 参加了两次面试
"""

NOTES_MEETINGS = """# 会议记录

周一 10:00 例会：同步各项目进度，确认本周发布窗口。
周三 15:00 技术评审：讨论缓存方案，决定先用本地缓存再评估 Redis。
"""


def pytool_util(rng: random.Random) -> str:
    """A util module above the gzip threshold (helpers plus seeded filler docs)."""
    words = ["cache", "token", "parser", "buffer", "stream", "record", "index", "chain"]
    helpers = "\n\n".join(
        f'def helper_{i}(value):\n    """Normalize a {rng.choice(words)} value ({i})."""\n'
        f"    return str(value).strip().lower()"
        for i in range(12)
    )
    return (
        '"""Text helpers for pytool."""\n\nimport re\n\n\n'
        "def slugify(text):\n"
        '    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")\n\n\n'
        "def word_count(text):\n    return len(text.split())\n\n\n" + helpers + "\n"
    )


def datalab_csv(rng: random.Random, rows: int = 80) -> str:
    """A CSV above the gzip threshold."""
    cities = ["Berlin", "Lisbon", "Osaka", "Quito", "Nairobi", "Oslo", "Perth"]
    lines = ["id,city,temp_c,humidity"]
    for i in range(1, rows + 1):
        lines.append(f"{i},{rng.choice(cities)},{rng.randint(-5, 35)},{rng.randint(20, 95)}")
    return "\n".join(lines) + "\n"


DATALAB_CONFIG = "source: data/readings.csv\nunits: metric\nthreshold: 30\n"
DATALAB_NOTES = "Notes\n=====\n\nRun 1: baseline.\n"
DATALAB_ANALYZE = """import csv


def hot_days(path, threshold):
    with open(path) as fh:
        return [r for r in csv.DictReader(fh) if int(r["temp_c"]) > threshold]
"""

OLDPROJ_MAIN = 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("hi")\n}\n'
