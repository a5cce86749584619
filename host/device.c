/* device.c -- the error type, counter lists, and the calls of the contract.
 *
 * The wrappers below only forward to a device's ops table; they exist so that
 * callers never touch the table and so that every error message has one shape.
 * Which backend a spec names is not decided here (host/device_registry.c), so
 * that this file -- used by every room -- depends on no backend.
 */
#include "host/device.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An error is one line, whatever a user's input put into it: a CR or LF of a
 * value it quotes (a CRLF file, a --set argument) would split it, an escape
 * would reach the terminal.  Control characters become '?'. */
static void one_line(char *msg)
{
    for (char *c = msg; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
}

int gd_fail(gd_err *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        one_line(err->msg);
    }
    return -1;
}

int gd_fail_prefix(gd_err *err, const char *fmt, ...)
{
    if (err) {
        char prefix[GD_ERR_MSG_BYTES];
        char old[GD_ERR_MSG_BYTES];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(prefix, sizeof prefix, fmt, ap);
        va_end(ap);
        memcpy(old, err->msg, sizeof old);
        old[sizeof old - 1] = 0;
        size_t n = strlen(prefix);
        if (n > sizeof err->msg - 3)
            n = sizeof err->msg - 3;
        memcpy(err->msg, prefix, n);
        memcpy(err->msg + n, ": ", 2);
        size_t rest = sizeof err->msg - n - 3;
        size_t ol = strlen(old);
        if (ol > rest)
            ol = rest;
        memcpy(err->msg + n + 2, old, ol);
        err->msg[n + 2 + ol] = 0;
        one_line(err->msg);
    }
    return -1;
}

int gd_counter_list_add(gd_counter_list *list, const char *name, double value)
{
    if (list->count == list->capacity) {
        size_t cap = list->capacity ? list->capacity * 2 : 32;
        gd_counter *items = realloc(list->items, cap * sizeof *items);
        if (!items)
            return -1;
        list->items = items;
        list->capacity = cap;
    }
    gd_counter *c = &list->items[list->count++];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->value = value;
    c->gauge = 0;
    c->sparse = 0;
    return 0;
}

void gd_counter_list_free(gd_counter_list *list)
{
    free(list->items);
    list->items = NULL;
    list->count = list->capacity = 0;
}

int gd_counter_list_add_gauge(gd_counter_list *list, const char *name, double value)
{
    if (gd_counter_list_add(list, name, value) != 0)
        return -1;
    list->items[list->count - 1].gauge = 1;
    return 0;
}

int gd_counter_list_add_sparse(gd_counter_list *list, const char *name, double value)
{
    if (gd_counter_list_add(list, name, value) != 0)
        return -1;
    list->items[list->count - 1].sparse = 1;
    return 0;
}

double gd_counter_list_get(const gd_counter_list *list, const char *name, double missing)
{
    for (size_t i = 0; i < list->count; i++)
        if (strcmp(list->items[i].name, name) == 0)
            return list->items[i].value;
    return missing;
}

void gd_device_close(gd_device *dev)
{
    if (dev)
        dev->ops->close(dev);
}

const gd_device_info *gd_device_get_info(const gd_device *dev)
{
    return &dev->info;
}

int gd_kernel_load(gd_device *dev, const char *ptx, const char *entry, const gd_load_opts *opts,
                   gd_kernel **out, gd_err *err)
{
    return dev->ops->load(dev, ptx, entry, opts, out, err);
}

void gd_kernel_unload(gd_device *dev, gd_kernel *kernel)
{
    if (kernel)
        dev->ops->unload(dev, kernel);
}

int gd_mem_alloc(gd_device *dev, size_t bytes, gd_devptr *out, gd_err *err)
{
    return dev->ops->alloc(dev, bytes, out, err);
}

int gd_mem_release(gd_device *dev, gd_devptr ptr, gd_err *err)
{
    return dev->ops->release(dev, ptr, err);
}

int gd_mem_copy_in(gd_device *dev, gd_devptr dst, const void *src, size_t bytes, gd_err *err)
{
    return dev->ops->copy_in(dev, dst, src, bytes, err);
}

int gd_mem_copy_out(gd_device *dev, void *dst, gd_devptr src, size_t bytes, gd_err *err)
{
    return dev->ops->copy_out(dev, dst, src, bytes, err);
}

int gd_mem_fill(gd_device *dev, gd_devptr dst, uint8_t byte, size_t bytes, gd_err *err)
{
    return dev->ops->fill(dev, dst, byte, bytes, err);
}

void *gd_mem_host_view(gd_device *dev, gd_devptr addr, size_t bytes)
{
    return dev->ops->host_view ? dev->ops->host_view(dev, addr, bytes) : NULL;
}

int gd_symbol_write(gd_device *dev, gd_kernel *kernel, const char *name, const void *data,
                    size_t bytes, gd_err *err)
{
    if (!dev->ops->write_symbol)
        return gd_fail(err, "%s: this device cannot write module variables", dev->info.spec);
    return dev->ops->write_symbol(dev, kernel, name, data, bytes, err);
}

int gd_kernel_launch(gd_device *dev, gd_kernel *kernel, const gd_launch *launch, gd_err *err)
{
    return dev->ops->launch(dev, kernel, launch, err);
}

int gd_device_synchronize(gd_device *dev, gd_err *err)
{
    return dev->ops->synchronize(dev, err);
}

int gd_device_counters(gd_device *dev, gd_counter_list *out, gd_err *err)
{
    if (!dev->ops->counters)
        return 0;
    return dev->ops->counters(dev, out, err);
}

int gd_device_trace(gd_device *dev, gd_trace_sink sink, void *user, gd_err *err)
{
    if (!dev->ops->trace)
        return gd_fail(err, "this device has no load/store-unit trace (sim:ARCH devices do)");
    return dev->ops->trace(dev, sink, user, err);
}
