/**
 * A small warehouse inventory for the browser and Node: items, stock
 * levels, an event log. Written for chunktui's tests as realistic JavaScript.
 * @module inventory
 */

import { EventEmitter } from "node:events";

// 默认补货阈值
export const DEFAULT_REORDER_LEVEL = 10;

/**
 * Formats a price in the shop's currency.
 * @param {number} cents
 * @returns {string}
 */
export function formatPrice(cents) {
  const whole = Math.trunc(cents / 100);
  const rest = String(Math.abs(cents % 100)).padStart(2, "0");
  return `${whole}.${rest}`;
}

/** Sorts items by stock, lowest first, then by SKU. */
const byStock = (stock) => (a, b) => stock(a.sku) - stock(b.sku) || a.sku.localeCompare(b.sku);

export class OutOfStockError extends Error {
  constructor(sku, wanted, held) {
    super(`${sku}: wanted ${wanted}, only ${held} held`);
    this.name = "OutOfStockError";
    this.sku = sku;
  }
}

/**
 * Stock levels per SKU with an event for every change.
 * Emits "change" with { sku, delta, level }.
 */
export class Inventory extends EventEmitter {
  #items = new Map();
  #stock = new Map();
  reorderLevel = DEFAULT_REORDER_LEVEL;

  /** @param {Iterable<{sku: string, name: string, cents: number}>} items */
  constructor(items = []) {
    super();
    for (const item of items) {
      this.#items.set(item.sku, item);
    }
  }

  get size() {
    return this.#items.size;
  }

  /** Makes a new item known; its stock starts at zero. */
  register(item) {
    if (this.#items.has(item.sku)) {
      throw new Error(`${item.sku} is already registered`);
    }
    this.#items.set(item.sku, item);
  }

  /**
   * Adds delivered units.
   * @returns {number} the new stock level
   */
  receive(sku, units) {
    this.#require(sku);
    if (!Number.isInteger(units) || units <= 0) {
      throw new RangeError("a delivery brings at least one unit");
    }
    return this.#change(sku, units);
  }

  /** Removes sold units, never below zero. */
  take(sku, units) {
    this.#require(sku);
    const held = this.stock(sku);
    if (units > held) {
      // 库存不足：不修改任何数据
      throw new OutOfStockError(sku, units, held);
    }
    return this.#change(sku, -units);
  }

  stock(sku) {
    return this.#stock.get(sku) ?? 0;
  }

  /** What everything on the shelves is worth, in cents. */
  value() {
    let cents = 0;
    for (const [sku, level] of this.#stock) {
      cents += this.#items.get(sku).cents * level;
    }
    return cents;
  }

  toReorder() {
    const low = [...this.#items.values()].filter((i) => this.stock(i.sku) <= this.reorderLevel);
    return low.sort(byStock((sku) => this.stock(sku)));
  }

  *[Symbol.iterator]() {
    yield* this.#items.values();
  }

  #change(sku, delta) {
    const level = this.stock(sku) + delta;
    this.#stock.set(sku, level);
    this.emit("change", { sku, delta, level });
    return level;
  }

  #require(sku) {
    if (!this.#items.has(sku)) {
      throw new Error(`unknown item ${sku}: register it first`);
    }
  }
}

/** A plain-text report, one line per item. */
export function report(inventory) {
  const lines = [];
  for (const item of inventory) {
    const held = inventory.stock(item.sku);
    const flag = held <= inventory.reorderLevel ? " 需要补货" : "";
    lines.push(`${item.sku.padEnd(8)} ${item.name.padEnd(20)} ${String(held).padStart(6)}${flag}`);
  }
  lines.push(`total value: ${formatPrice(inventory.value())}`);
  return lines.join("\n");
}
