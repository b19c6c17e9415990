// Package inventory keeps stock levels for a small warehouse: items, levels,
// a history of movements and reorder rules. Written for chunktui's tests as
// realistic Go.
package inventory

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// DefaultReorderLevel is the stock at or below which an item is reordered.
// 默认补货阈值（件）。
const DefaultReorderLevel = 10

// ErrUnknownItem is returned for a SKU that was never registered.
var ErrUnknownItem = errors.New("unknown item: register it first")

// Item is one kind of thing the warehouse holds.
type Item struct {
	SKU   string
	Name  string
	Cents int64 // price of one unit
	Shelf string
}

// Movement is one change of stock: positive for a delivery, negative for a sale.
type Movement struct {
	SKU   string
	Delta int
	Note  string
}

// OutOfStockError says how many units were wanted and how many were held.
type OutOfStockError struct {
	SKU          string
	Wanted, Held int
}

func (e *OutOfStockError) Error() string {
	return fmt.Sprintf("%s: wanted %d, only %d held", e.SKU, e.Wanted, e.Held)
}

// Store is what a report needs from an inventory.
type Store interface {
	Stock(sku string) int
	Items() []Item
}

// Inventory holds stock levels per SKU. It is safe for concurrent use.
type Inventory struct {
	mu           sync.Mutex
	items        map[string]Item
	levels       map[string]int
	history      []Movement
	ReorderLevel int
}

// New returns an inventory that knows the given items, all at zero stock.
func New(items ...Item) *Inventory {
	inv := &Inventory{
		items:        make(map[string]Item, len(items)),
		levels:       make(map[string]int),
		ReorderLevel: DefaultReorderLevel,
	}
	for _, it := range items {
		inv.items[it.SKU] = it
	}
	return inv
}

// Register makes a new item known.
func (inv *Inventory) Register(it Item) error {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if _, ok := inv.items[it.SKU]; ok {
		return fmt.Errorf("%s is already registered", it.SKU)
	}
	inv.items[it.SKU] = it
	return nil
}

// Receive adds delivered units and returns the new level.
func (inv *Inventory) Receive(sku string, units int) (int, error) {
	if units <= 0 {
		return 0, errors.New("a delivery brings at least one unit")
	}
	return inv.change(sku, units, "delivery")
}

// Take removes sold units; it never goes below zero.
func (inv *Inventory) Take(sku string, units int) (int, error) {
	inv.mu.Lock()
	held := inv.levels[sku]
	inv.mu.Unlock()
	if units > held {
		// 库存不足：不做任何修改
		return held, &OutOfStockError{SKU: sku, Wanted: units, Held: held}
	}
	return inv.change(sku, -units, "sale")
}

func (inv *Inventory) change(sku string, delta int, note string) (int, error) {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if _, ok := inv.items[sku]; !ok {
		return 0, fmt.Errorf("%s: %w", sku, ErrUnknownItem)
	}
	inv.levels[sku] += delta
	inv.history = append(inv.history, Movement{SKU: sku, Delta: delta, Note: note})
	return inv.levels[sku], nil
}

// Stock is the current level of one SKU.
func (inv *Inventory) Stock(sku string) int {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	return inv.levels[sku]
}

// Items lists the known items by SKU.
func (inv *Inventory) Items() []Item {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	out := make([]Item, 0, len(inv.items))
	for _, it := range inv.items {
		out = append(out, it)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SKU < out[j].SKU })
	return out
}

// ToReorder lists the items at or below the reorder level, lowest first.
func (inv *Inventory) ToReorder() []Item {
	var low []Item
	for _, it := range inv.Items() {
		if inv.Stock(it.SKU) <= inv.ReorderLevel {
			low = append(low, it)
		}
	}
	sort.SliceStable(low, func(i, j int) bool { return inv.Stock(low[i].SKU) < inv.Stock(low[j].SKU) })
	return low
}

// Report renders one line per item of any store.
func Report(s Store) string {
	var b strings.Builder
	for _, it := range s.Items() {
		held := s.Stock(it.SKU)
		flag := ""
		if held <= DefaultReorderLevel {
			flag = " 需要补货"
		}
		fmt.Fprintf(&b, "%-8s %-20s %6d%s\n", it.SKU, it.Name, held, flag)
	}
	return b.String()
}
