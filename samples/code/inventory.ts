/**
 * Typed warehouse inventory: items, stock levels and reorder rules.
 * Written for chunktui's tests as realistic TypeScript.
 */

import { EventEmitter } from "node:events";

/** One kind of thing the warehouse holds. */
export interface Item {
  readonly sku: string;
  name: string;
  /** Price of one unit, in cents. */
  cents: number;
  // 货架编号，例如 "A1"
  shelf?: string;
}

export type Movement = { sku: string; delta: number; note: string };

export enum Reason {
  Delivery = "delivery",
  Sale = "sale",
  Correction = "correction",
}

/** Marks a method whose calls are logged with their first argument. */
function audited(action: string) {
  return function (target: unknown, key: string, descriptor: PropertyDescriptor): PropertyDescriptor {
    const original = descriptor.value as (...args: unknown[]) => unknown;
    descriptor.value = function (this: unknown, ...args: unknown[]) {
      console.debug(`${action} ${String(args[0])}`);
      return original.apply(this, args);
    };
    return descriptor;
  };
}

export class OutOfStockError extends Error {
  constructor(
    readonly sku: string,
    readonly wanted: number,
    readonly held: number,
  ) {
    super(`${sku}: wanted ${wanted}, only ${held} held`);
  }
}

/** Stock rules shared by every kind of store. */
export abstract class Store {
  abstract stock(sku: string): number;

  /** Whether `units` can be taken now. */
  canTake(sku: string, units: number): boolean {
    return units <= this.stock(sku);
  }
}

export namespace Pricing {
  /** Formats cents as a price. */
  export function format(cents: number): string {
    return `${Math.trunc(cents / 100)}.${String(Math.abs(cents % 100)).padStart(2, "0")}`;
  }

  export const VAT_RATE = 0.19;

  // 含税价格，四舍五入到分
  export function withVat(cents: number): number {
    return Math.round(cents * (1 + VAT_RATE));
  }
}

/** Stock levels per SKU with a history of every change. */
export class Inventory extends Store {
  private readonly items = new Map<string, Item>();
  private readonly levels = new Map<string, number>();
  private readonly log: Movement[] = [];
  readonly events = new EventEmitter();
  reorderLevel = 10;

  constructor(items: Iterable<Item> = []) {
    super();
    for (const item of items) this.items.set(item.sku, item);
  }

  @audited("register")
  register(item: Item): void {
    if (this.items.has(item.sku)) {
      throw new Error(`${item.sku} is already registered`);
    }
    this.items.set(item.sku, item);
  }

  @audited("receive")
  receive(sku: string, units: number, note: string = Reason.Delivery): number {
    this.require(sku);
    if (units <= 0) throw new RangeError("a delivery brings at least one unit");
    return this.change({ sku, delta: units, note });
  }

  @audited("take")
  take(sku: string, units: number, note: string = Reason.Sale): number {
    this.require(sku);
    const held = this.stock(sku);
    if (!this.canTake(sku, units)) {
      // 库存不足，拒绝出库
      throw new OutOfStockError(sku, units, held);
    }
    return this.change({ sku, delta: -units, note });
  }

  stock(sku: string): number {
    return this.levels.get(sku) ?? 0;
  }

  value(): number {
    let cents = 0;
    for (const [sku, level] of this.levels) cents += (this.items.get(sku)?.cents ?? 0) * level;
    return cents;
  }

  toReorder(): Item[] {
    return [...this.items.values()]
      .filter((i) => this.stock(i.sku) <= this.reorderLevel)
      .sort((a, b) => this.stock(a.sku) - this.stock(b.sku) || a.sku.localeCompare(b.sku));
  }

  history(sku?: string): readonly Movement[] {
    return sku === undefined ? [...this.log] : this.log.filter((m) => m.sku === sku);
  }

  private change(m: Movement): number {
    const level = this.stock(m.sku) + m.delta;
    this.levels.set(m.sku, level);
    this.log.push(m);
    this.events.emit("change", { ...m, level });
    return level;
  }

  private require(sku: string): void {
    if (!this.items.has(sku)) throw new Error(`unknown item ${sku}: register it first`);
  }
}

/** A plain-text report, one line per item. */
export const report = (inventory: Inventory, items: Item[]): string =>
  items
    .map((i) => `${i.sku.padEnd(8)} ${String(inventory.stock(i.sku)).padStart(6)}`)
    .concat([`total value: ${Pricing.format(inventory.value())}`])
    .join("\n");
