"""Starting contents of the demo's scratch projects (seeded where it is filler).

Sizes are chosen so both sides of the checkpoint gzip threshold occur (FORMAT.md §10.3; about half
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

export interface Receipt {
  orderId: string;
  totalCents: number;
  placedAt: string;
}

let nextOrder = 1000;

function newOrderId(): string {
  nextOrder += 1;
  return `ord_${nextOrder}`;
}

export function checkout(cart: Cart, payment: Payment): { ok: boolean; error?: string } {
  // TODO: validate payment
  if (cart.totalCents() === 0) return { ok: false, error: "empty cart" };
  return { ok: true };
}

export function receipt(cart: Cart, now: Date = new Date()): Receipt {
  return {
    orderId: newOrderId(),
    totalCents: cart.totalCents(),
    placedAt: now.toISOString(),
  };
}

export function describe(r: Receipt): string {
  // Shown on the confirmation page and in the e-mail.
  return `Order ${r.orderId}: ${(r.totalCents / 100).toFixed(2)} placed ${r.placedAt}`;
}

export function refundable(r: Receipt, now: Date = new Date()): boolean {
  // Refunds are allowed for 30 days after the order was placed.
  const days = (now.getTime() - Date.parse(r.placedAt)) / 86_400_000;
  return days <= 30;
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

.button:hover {
  background: #084e96;
}

.header {
  display: flex;
  justify-content: space-between;
  align-items: center;
  padding: 0.75rem 1rem;
  border-bottom: 1px solid #eee;
}

.product-grid {
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(12rem, 1fr));
  gap: 1rem;
  padding: 1rem;
}

.product-card {
  border: 1px solid #eee;
  border-radius: 0.5rem;
  padding: 0.75rem;
}

.product-card img {
  width: 100%;
  aspect-ratio: 4 / 3;
  object-fit: cover;
}

.price {
  font-weight: 600;
}

.footer {
  color: #666;
  font-size: 0.875rem;
  padding: 2rem 1rem;
}

.badge {
  display: inline-block;
  padding: 0.125rem 0.5rem;
  border-radius: 999px;
  background: #fde68a;
  font-size: 0.75rem;
}

.checkout-form label {
  display: block;
  margin-top: 0.75rem;
  font-weight: 500;
}

.checkout-form input {
  width: 100%;
  padding: 0.5rem;
  border: 1px solid #ccc;
}

.error {
  color: #b91c1c;
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

PYTOOL_TEST = """from pytool.util import slugify, word_count


def test_slugify():
    assert slugify("Hello World") == "hello-world"


def test_word_count():
    assert word_count("a b  c") == 3
"""

PYTOOL_CONFIG = "[server]\r\nhost = localhost\r\nport = 8080\r\n\r\n[log]\r\nlevel = info\r\n"
PYTOOL_TODO = "# todo\n\n- [ ] add a --json flag\n- [ ] release 0.2"

NOTES_WEEKLY = """# 周报（第 47 周）

## 项目 A
- 完成登录页改版，等待设计评审
- 修复了支付回调偶发超时的问题

## 项目 B
- 数据迁移脚本已跑通测试环境
- 下周计划：灰度发布 10%

## 项目 C
- 完成了搜索接口的分页改造，旧接口保留兼容期两周
- 与产品确认了筛选条件的交互稿，下周开始开发
- 排查了移动端图片加载慢的问题：缩略图没有走 CDN，已修复

## 项目 D
- 监控告警规则梳理完毕，删除了 12 条长期误报的规则
- 新增了数据库慢查询的日报，发送到团队群
- 计划：把日志采集从自建方案迁移到托管服务，预计需要三周

## 杂项
- 整理了团队的代码评审清单
- 参加了两次面试
- 分享了一次关于会话持久化与断点恢复的内部技术讲座
- 更新了新人入职文档中的开发环境搭建步骤

## 风险
- 项目 B 的灰度依赖运维窗口，如果下周窗口取消需要顺延
- 项目 D 的迁移需要安全团队评审，排期尚未确定

## 下周重点
- 项目 A 设计评审通过后立即开发，目标周五提测
- 项目 B 灰度 10% 并观察一周核心指标
- 项目 C 筛选功能开发启动
- 完成季度 OKR 自评初稿
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
