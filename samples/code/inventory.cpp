// inventory.cpp - stock levels for a small warehouse, in C++17.
// Written for chunktui's tests as realistic C++: a namespace, classes with
// nested types, templates, and comments in English and Chinese.

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace shop {

/// The stock at or below which an item is reordered. 默认补货阈值。
constexpr int kDefaultReorderLevel = 10;

/// One kind of thing the warehouse holds.
struct Item {
    std::string sku;
    std::string name;
    long cents = 0;  // price of one unit
};

/// Thrown when more units are taken than are held.
class OutOfStock : public std::runtime_error {
public:
    OutOfStock(const std::string& sku, int wanted, int held)
        : std::runtime_error(sku + ": wanted " + std::to_string(wanted) + ", only " + std::to_string(held)),
          held_(held) {}

    int held() const { return held_; }

private:
    int held_;
};

/// Keeps the last N values pushed into it.
template <typename T, std::size_t N>
class Ring {
public:
    void push(T value) {
        if (values_.size() == N) {
            values_.erase(values_.begin());
        }
        values_.push_back(std::move(value));
    }

    const std::vector<T>& values() const { return values_; }

private:
    std::vector<T> values_;
};

/// Stock levels per SKU with a short history of movements.
class Inventory {
public:
    /// One change of stock: positive for a delivery, negative for a sale.
    struct Movement {
        std::string sku;
        int delta;
    };

    explicit Inventory(std::vector<Item> items) {
        for (auto& item : items) {
            items_.emplace(item.sku, std::move(item));
        }
    }

    /// Makes a new item known; its stock starts at zero.
    void add(Item item) {
        auto [it, inserted] = items_.emplace(item.sku, std::move(item));
        if (!inserted) {
            throw std::invalid_argument(it->first + " is already registered");
        }
    }

    /// Adds delivered units and returns the new level.
    int receive(const std::string& sku, int units) {
        require(sku);
        if (units <= 0) {
            throw std::invalid_argument("a delivery brings at least one unit");
        }
        return change(sku, units);
    }

    /// Removes sold units; never below zero.
    int take(const std::string& sku, int units) {
        require(sku);
        const int held = stock(sku);
        if (units > held) {
            // 库存不足：不修改任何数据
            throw OutOfStock(sku, units, held);
        }
        return change(sku, -units);
    }

    int stock(const std::string& sku) const {
        auto it = levels_.find(sku);
        return it == levels_.end() ? 0 : it->second;
    }

    std::vector<Item> to_reorder() const;

private:
    int change(const std::string& sku, int delta) {
        int& level = levels_[sku];
        level += delta;
        history_.push({sku, delta});
        return level;
    }

    void require(const std::string& sku) const {
        if (items_.count(sku) == 0) {
            throw std::invalid_argument("unknown item " + sku + ": register it first");
        }
    }

    std::map<std::string, Item> items_;
    std::map<std::string, int> levels_;
    Ring<Movement, 64> history_;
    int reorder_level_ = kDefaultReorderLevel;
};

std::vector<Item> Inventory::to_reorder() const {
    std::vector<Item> low;
    for (const auto& [sku, item] : items_) {
        if (stock(sku) <= reorder_level_) {
            low.push_back(item);
        }
    }
    std::sort(low.begin(), low.end(), [this](const Item& a, const Item& b) {
        return stock(a.sku) < stock(b.sku);
    });
    return low;
}

}  // namespace shop
