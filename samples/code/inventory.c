/*
 * inventory.c - stock levels for a small warehouse, in plain C99.
 * Written for chunktui's tests as realistic C: structs, typedefs,
 * preprocessor blocks, and comments in English and Chinese.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ITEMS 256
#define SKU_LEN 16
/* 默认补货阈值（件） */
#define DEFAULT_REORDER_LEVEL 10

/* Why stock changed. */
enum reason {
    REASON_DELIVERY,
    REASON_SALE,
    REASON_CORRECTION,
};

/* One kind of thing the warehouse holds. */
struct item {
    char sku[SKU_LEN];
    const char *name;
    long cents; /* price of one unit */
    int level;  /* units held */
};

/* The whole warehouse: a fixed table of items. */
typedef struct {
    struct item items[MAX_ITEMS];
    size_t count;
    int reorder_level;
} inventory_t;

/* Result codes of the functions below. */
typedef enum {
    INV_OK = 0,
    INV_UNKNOWN = -1,
    INV_FULL = -2,
    INV_OUT_OF_STOCK = -3,
} inv_status;

static struct item *find(inventory_t *inv, const char *sku)
{
    for (size_t i = 0; i < inv->count; i++) {
        if (strncmp(inv->items[i].sku, sku, SKU_LEN) == 0) {
            return &inv->items[i];
        }
    }
    return NULL;
}

/* Start an empty inventory. */
void inventory_init(inventory_t *inv)
{
    memset(inv, 0, sizeof *inv);
    inv->reorder_level = DEFAULT_REORDER_LEVEL;
}

/* Make a new item known; its stock starts at zero. */
inv_status inventory_register(inventory_t *inv, const char *sku, const char *name, long cents)
{
    if (find(inv, sku) != NULL) {
        return INV_OK;
    }
    if (inv->count == MAX_ITEMS) {
        return INV_FULL;
    }
    struct item *it = &inv->items[inv->count++];
    strncpy(it->sku, sku, SKU_LEN - 1);
    it->name = name;
    it->cents = cents;
    it->level = 0;
    return INV_OK;
}

/* Add (delta > 0) or remove (delta < 0) units; never below zero. */
inv_status inventory_change(inventory_t *inv, const char *sku, int delta, enum reason why)
{
    struct item *it = find(inv, sku);
    if (it == NULL) {
        return INV_UNKNOWN;
    }
    if (it->level + delta < 0) {
        /* 库存不足：不修改任何数据 */
        return INV_OUT_OF_STOCK;
    }
    it->level += delta;
#ifdef INVENTORY_DEBUG
    fprintf(stderr, "%s %+d (%d)\n", sku, delta, (int)why);
#else
    (void)why;
#endif
    return INV_OK;
}

/* What everything on the shelves is worth, in cents. */
long inventory_value(const inventory_t *inv)
{
    long cents = 0;
    for (size_t i = 0; i < inv->count; i++) {
        cents += inv->items[i].cents * inv->items[i].level;
    }
    return cents;
}

static int by_level(const void *a, const void *b)
{
    const struct item *x = a, *y = b;
    return (x->level > y->level) - (x->level < y->level);
}

/* Print one line per item, lowest stock first. */
void inventory_report(inventory_t *inv, FILE *out)
{
    qsort(inv->items, inv->count, sizeof inv->items[0], by_level);
    for (size_t i = 0; i < inv->count; i++) {
        const struct item *it = &inv->items[i];
        const char *flag = it->level <= inv->reorder_level ? " 需要补货" : "";
        fprintf(out, "%-8s %-20s %6d%s\n", it->sku, it->name, it->level, flag);
    }
    fprintf(out, "total value: %ld.%02ld\n", inventory_value(inv) / 100, inventory_value(inv) % 100);
}

#ifdef INVENTORY_MAIN
int main(void)
{
    static inventory_t inv;
    inventory_init(&inv);
    inventory_register(&inv, "B-100", "bolt", 12);
    inventory_change(&inv, "B-100", 500, REASON_DELIVERY);
    inventory_report(&inv, stdout);
    return EXIT_SUCCESS;
}
#endif
