/* device.h -- the one interface between the harness and a device.
 *
 * gpudissect runs the same PTX on two kinds of device: a real NVIDIA GPU through
 * the CUDA driver API ("cuda:N", host/cuda_device.c) and the simulated GPU
 * ("sim:ARCH", sim/sim_device.c).  Everything above this header -- the runner, the
 * probes, the analysis -- sees only what is declared here, so nothing downstream
 * can tell which device produced a sample buffer.
 *
 * This header is the device *contract* and the error type (gd_err) that every
 * room shares: it is the one host/ header that kernels/, sim/ and analysis/
 * include.  It knows no backend; host/device_registry.c opens one by spec.
 *
 * Conventions: every call returns 0 on success or -1 on failure and then fills a
 * gd_err with one line that names the failing call (for CUDA: the driver entry
 * point and cuGetErrorName/cuGetErrorString).  Nothing in a backend prints or
 * exits; only main() does.
 */
#ifndef GD_DEVICE_H
#define GD_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#define GD_ERR_MSG_BYTES 1024

/* One line of error text.  Filled by the failing function, printed by main(). */
typedef struct gd_err {
    char msg[GD_ERR_MSG_BYTES];
} gd_err;

/* Fill err (if non-NULL) with a printf-style message; always returns -1 so that
 * callers can write `return gd_fail(err, "...")`. */
int gd_fail(gd_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prefix an existing message: "context: old message". Returns -1. */
int gd_fail_prefix(gd_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

typedef uint64_t gd_devptr;

/* What a device says about itself.  For sim devices the values come from the
 * arch file; for CUDA devices from cuDeviceGetAttribute and friends. */
typedef struct gd_device_info {
    char spec[128];             /* as opened: "sim:t4", "cuda:0" */
    char backend[8];            /* "sim" or "cuda" */
    char name[128];             /* "Tesla T4", "sim: Tesla T4 (t4.arch)" */
    char arch_name[64];         /* sim: arch file stem; cuda: empty */
    char arch_path[512];        /* sim: the arch file read; cuda: empty */
    int sm_count;
    int subpartitions_per_sm;   /* warp schedulers (processing blocks) per SM */
    double clock_mhz;           /* SM clock */
    uint64_t l2_bytes;
    uint64_t global_mem_bytes;
    uint32_t shared_per_block_bytes; /* static + dynamic shared memory a CTA may use */
    int cc_major, cc_minor;     /* compute capability; sim: from the arch file */
    int driver_version;         /* cuDriverGetVersion, e.g. 13000; sim: 0 */
    int toolkit_version;        /* CUDA_VERSION of the headers built against; 0 if none */
    char pci_bus_id[32];        /* cuda: "0000:65:00.0"; sim: empty */
} gd_device_info;

/* A loaded kernel.  Backends allocate a larger struct that begins with this. */
typedef struct gd_kernel {
    char entry[128];
    uint64_t code_bytes;        /* machine-code bytes of the entry (.text.<entry>) */
    uint32_t instruction_count; /* code_bytes / 16 on sm_70+; sim: PTX instructions */
    char *jit_info_log;         /* owned; may be empty, never NULL after load */
    char *jit_error_log;        /* owned; may be empty, never NULL after load */
    /* What the kernel asks of an SM, as the device reports it after load
     * (cuda: cuFuncGetAttribute; sim: from the PTX).  -1 / 0 where unknown. */
    int carveout_percent;       /* the preference set (read back) */
    uint32_t static_shared_bytes;
    int registers_per_thread;   /* sim: -1 (the simulator allocates none) */
    uint32_t local_bytes_per_thread;
    /* What the last launch got, where the device knows (sim); 0 where not. */
    uint32_t launch_shared_carveout_bytes; /* the split: shared memory per SM */
    uint64_t launch_l1d_bytes;             /* the L1D left to the launch */
} gd_kernel;

/* How a kernel's machine code is altered before it is loaded.  The probe asks;
 * each device does it in its own terms (cuda: on the cubin the JIT returned, see
 * kernels/sass_patch.h; sim: on the parsed PTX). */
typedef enum gd_code_patch {
    GD_PATCH_NONE,
    /* The kernel has one run of exactly `patch_count` consecutive FFMA (PTX
     * fma.rn.f32) instructions; each becomes a NOP of the same size. */
    GD_PATCH_FFMA_TO_NOP,
} gd_code_patch;

typedef struct gd_load_opts {
    gd_code_patch patch;
    uint32_t patch_count;
    /* The kernel's preferred L1/shared-memory carve-out, in percent of the
     * largest shared-memory size per SM: 0 (the zero value) asks for the most
     * L1, 100 for the most shared memory.  Every backend sets it on every
     * kernel it loads (cuda: CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT;
     * sim: the driver's rule, analysis/arch_carveout.c). */
    int carveout_percent;
} gd_load_opts;

/* Kernel arguments in declaration order; each points at its value's bytes. */
typedef struct gd_launch {
    unsigned grid[3];
    unsigned block[3];
    unsigned dynamic_shared_bytes;
    unsigned param_count;
    const void *const *param_values;
    const size_t *param_sizes;
} gd_launch;

/* Named counters a device can report after a run (sim: event counts; cuda: CUPTI
 * metrics where available).  Values are since open: running totals, whose
 * increase over a stretch of work is what that work counted, or gauges (a
 * mean, a maximum, a ratio), which have no such difference. */
#define GD_COUNTER_NAME_BYTES 48
typedef struct gd_counter {
    char name[GD_COUNTER_NAME_BYTES];
    double value;
    int gauge;                  /* 0: a running total */
    int sparse;                 /* listed only once nonzero: a point's delta of 0 is
                                 * left out (else the rows would say which points the
                                 * process that measured this one had run before) */
} gd_counter;

typedef struct gd_counter_list {
    gd_counter *items;
    size_t count;
    size_t capacity;
} gd_counter_list;

int gd_counter_list_add(gd_counter_list *list, const char *name, double value);
int gd_counter_list_add_gauge(gd_counter_list *list, const char *name, double value);
/* A running total the device lists only while it is nonzero (gd_counter.sparse). */
int gd_counter_list_add_sparse(gd_counter_list *list, const char *name, double value);
void gd_counter_list_free(gd_counter_list *list);
/* Value of a named counter, or `missing` when the list has none of that name. */
double gd_counter_list_get(const gd_counter_list *list, const char *name, double missing);

/* A device's event trace (sim: every step of every L1 request in the
 * load/store unit -- accepted, enqueued, hit / miss / merge / sent, refused and
 * why, requeued, popped, filled): one CSV row per event, without its newline,
 * in the columns of GD_TRACE_COLUMNS. */
#define GD_TRACE_COLUMNS "launch,cycle,sm,instr,request,line_addr,set,event,reason"
typedef void (*gd_trace_sink)(void *user, const char *row);

/* Options given when a device is opened.  `overrides` are "SECTION.key=value"
 * strings applied on top of a sim arch file (ignored, with an error, by CUDA). */
typedef struct gd_device_opts {
    const char *const *overrides;
    size_t override_count;
} gd_device_opts;

typedef struct gd_device gd_device;

struct gd_device_ops {
    void (*close)(gd_device *dev);
    /* opts may be NULL (no patch) */
    int (*load)(gd_device *dev, const char *ptx, const char *entry, const gd_load_opts *opts,
                gd_kernel **out, gd_err *err);
    void (*unload)(gd_device *dev, gd_kernel *kernel);
    int (*alloc)(gd_device *dev, size_t bytes, gd_devptr *out, gd_err *err);
    int (*release)(gd_device *dev, gd_devptr ptr, gd_err *err);
    int (*copy_in)(gd_device *dev, gd_devptr dst, const void *src, size_t bytes, gd_err *err);
    int (*copy_out)(gd_device *dev, void *dst, gd_devptr src, size_t bytes, gd_err *err);
    int (*fill)(gd_device *dev, gd_devptr dst, uint8_t byte, size_t bytes, gd_err *err);
    /* The host memory of a whole allocation still zero as allocated, to be
     * written in place of a host buffer and copy_in; NULL when there is none
     * (not host-addressable, or written since).  May be NULL (a GPU). */
    void *(*host_view)(gd_device *dev, gd_devptr addr, size_t bytes);
    /* Writes `bytes` into the kernel module's variable `name` (a module-scope
     * .const array: the constant bank a probe scans). */
    int (*write_symbol)(gd_device *dev, gd_kernel *kernel, const char *name, const void *data,
                        size_t bytes, gd_err *err);
    int (*launch)(gd_device *dev, gd_kernel *kernel, const gd_launch *launch, gd_err *err);
    int (*synchronize)(gd_device *dev, gd_err *err);
    int (*counters)(gd_device *dev, gd_counter_list *out, gd_err *err); /* may be NULL */
    /* Hands every event to sink from now on (sink NULL: stops).  May be NULL:
     * the device has no trace. */
    int (*trace)(gd_device *dev, gd_trace_sink sink, void *user, gd_err *err);
};

/* Backends allocate a larger struct that begins with this. */
struct gd_device {
    const struct gd_device_ops *ops;
    gd_device_info info;
};

/* Opening a device by its spec ("sim:t4", "cuda:0") is the registry's job:
 * host/device_registry.h.  Closing goes through the device's own ops. */
void gd_device_close(gd_device *dev);
const gd_device_info *gd_device_get_info(const gd_device *dev);

int gd_kernel_load(gd_device *dev, const char *ptx, const char *entry, const gd_load_opts *opts,
                   gd_kernel **out, gd_err *err);
void gd_kernel_unload(gd_device *dev, gd_kernel *kernel);
int gd_mem_alloc(gd_device *dev, size_t bytes, gd_devptr *out, gd_err *err);
int gd_mem_release(gd_device *dev, gd_devptr ptr, gd_err *err);
int gd_mem_copy_in(gd_device *dev, gd_devptr dst, const void *src, size_t bytes, gd_err *err);
int gd_mem_copy_out(gd_device *dev, void *dst, gd_devptr src, size_t bytes, gd_err *err);
int gd_mem_fill(gd_device *dev, gd_devptr dst, uint8_t byte, size_t bytes, gd_err *err);
/* The device's host_view, or NULL where it has none. */
void *gd_mem_host_view(gd_device *dev, gd_devptr addr, size_t bytes);
int gd_symbol_write(gd_device *dev, gd_kernel *kernel, const char *name, const void *data,
                    size_t bytes, gd_err *err);
int gd_kernel_launch(gd_device *dev, gd_kernel *kernel, const gd_launch *launch, gd_err *err);
int gd_device_synchronize(gd_device *dev, gd_err *err);
/* Appends the device's counters to out; a device without counters appends none. */
int gd_device_counters(gd_device *dev, gd_counter_list *out, gd_err *err);
/* Starts (sink) or stops (NULL) the device's event trace; fails on a device
 * without one. */
int gd_device_trace(gd_device *dev, gd_trace_sink sink, void *user, gd_err *err);

#endif
