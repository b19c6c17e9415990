package shop.warehouse;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Stock levels per SKU for a small warehouse, with a history of every
 * movement and a reorder rule. Written for chunktui's tests as realistic Java.
 *
 * <p>库存管理：登记商品、入库、出库、补货提醒。
 */
public final class Inventory {

    /** The stock at or below which an item is reordered. */
    public static final int DEFAULT_REORDER_LEVEL = 10;

    /** One kind of thing the warehouse holds. */
    public record Item(String sku, String name, long cents, String shelf) {
        public Item {
            Objects.requireNonNull(sku, "sku");
            if (cents < 0) {
                throw new IllegalArgumentException("a price is never negative");
            }
        }

        /** A short label for reports. */
        public String label() {
            return sku + " " + name + " (" + shelf + ")";
        }
    }

    /** Why stock changed. */
    public enum Reason {
        DELIVERY,
        SALE,
        CORRECTION
    }

    /** Thrown when more units are taken than are held. */
    public static class OutOfStockException extends RuntimeException {
        private final int held;

        public OutOfStockException(String sku, int wanted, int held) {
            super(sku + ": wanted " + wanted + ", only " + held + " held");
            this.held = held;
        }

        public int held() {
            return held;
        }
    }

    /** One change of stock: positive for a delivery, negative for a sale. */
    public static final class Movement {
        final String sku;
        final int delta;
        final Reason reason;

        Movement(String sku, int delta, Reason reason) {
            this.sku = sku;
            this.delta = delta;
            this.reason = reason;
        }

        @Override
        public String toString() {
            return String.format("%s %+d %s", sku, delta, reason);
        }
    }

    private final Map<String, Item> items = new HashMap<>();
    private final Map<String, Integer> levels = new HashMap<>();
    private final List<Movement> history = new ArrayList<>();
    private int reorderLevel = DEFAULT_REORDER_LEVEL;

    public Inventory(Iterable<Item> known) {
        for (Item item : known) {
            items.put(item.sku(), item);
        }
    }

    /** Makes a new item known; its stock starts at zero. */
    public synchronized void register(Item item) {
        if (items.putIfAbsent(item.sku(), item) != null) {
            throw new IllegalStateException(item.sku() + " is already registered");
        }
    }

    /**
     * Adds delivered units.
     *
     * @return the new stock level
     */
    public synchronized int receive(String sku, int units) {
        require(sku);
        if (units <= 0) {
            throw new IllegalArgumentException("a delivery brings at least one unit");
        }
        return change(sku, units, Reason.DELIVERY);
    }

    /** Removes sold units; never below zero. */
    public synchronized int take(String sku, int units) {
        require(sku);
        int held = stock(sku);
        if (units > held) {
            // 库存不足：不修改任何数据
            throw new OutOfStockException(sku, units, held);
        }
        return change(sku, -units, Reason.SALE);
    }

    public synchronized int stock(String sku) {
        return levels.getOrDefault(sku, 0);
    }

    /** Items at or below the reorder level, lowest stock first. */
    public synchronized List<Item> toReorder() {
        List<Item> low = new ArrayList<>();
        for (Item item : items.values()) {
            if (stock(item.sku()) <= reorderLevel) {
                low.add(item);
            }
        }
        low.sort(Comparator.comparingInt((Item i) -> stock(i.sku())).thenComparing(Item::sku));
        return low;
    }

    @Deprecated
    public List<Movement> history() {
        return Collections.unmodifiableList(history);
    }

    public void setReorderLevel(int level) {
        this.reorderLevel = level;
    }

    private int change(String sku, int delta, Reason reason) {
        int level = stock(sku) + delta;
        levels.put(sku, level);
        history.add(new Movement(sku, delta, reason));
        return level;
    }

    private void require(String sku) {
        if (!items.containsKey(sku)) {
            throw new IllegalArgumentException("unknown item " + sku + ": register it first");
        }
    }
}
