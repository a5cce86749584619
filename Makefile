# gpudissect -- build, test, demo, bench.
#
#   make          build ./gpudissect (the simulator profile-fed and link-time
#                 optimized after a few seconds of training runs; SIM_OPT=0: plain)
#   make demo     install missing Debian packages, build, characterize sim:t4
#   make test     install missing Debian packages, build, run the test suite
#   make bench    simulator and analysis benchmarks (prints measured ratios)
#   make test SAN=1        the same suite under ASan + UBSan
#   make valgrind          the sim end-to-end tests under valgrind
#   make recovery          characterize generated GPUs and score every claimed
#                          parameter (RECOVERY_CONFIGS=200 RECOVERY_SEED=1000),
#                          the levels below the L1 on generated GPUs
#                          (BELOW_L1_CONFIGS=60 BELOW_L1_SEED=1), then the full
#                          suite on sim:a100 and sim:h100 (tests/test_big_l2.c)
#                          and --suite below_l1 on sim:h100 (test_below_l1);
#                          RECOVERY_KEEP=DIR keeps the sweep's arch files and runs
#   make rescore RECOVERY_RESCORE=DIR   score a kept sweep again with today's
#                          analysis (`gpudissect infer` on each run: minutes)
#   make check-layout      the include and call graphs between the rooms
#                          (no cycle, no include across a room's rule)
#   make fuzz SECONDS=N    every fuzz target of tests/fuzz/ for N seconds each
#                          (libFuzzer, clang, ASan + UBSan); crashes land in
#                          build-fuzz/crashes/; FUZZ_TARGETS="ptx sim" picks some
#
# The CUDA backend is compiled in when CUDA headers are found (CUDA_HOME, else
# /usr/local/cuda).  It never links libcuda: it dlopen()s libcuda.so.1 at run time.

CUDA_HOME ?= /usr/local/cuda
CC ?= cc
SAN ?=
comma := ,
ifeq ($(origin CC),default)
# the sanitizer build takes clang where it is installed: its UBSan also checks
# float-to-integer casts out of range (float-cast-overflow), which gcc's lacks
CC := $(if $(SAN),$(if $(shell command -v clang 2>/dev/null),clang,gcc),gcc)
endif
BUILD := build$(if $(SAN),-san)
BIN := gpudissect$(if $(SAN),-san)

HAVE_CUDA := $(shell test -f $(CUDA_HOME)/include/cuda.h && echo 1)

WARN := -Wall -Wextra -Werror
# snprintf truncation is intended wherever it is used (fixed-size names)
WARN += $(shell $(CC) -Werror -Wno-format-truncation -E -x c /dev/null >/dev/null 2>&1 && echo -Wno-format-truncation)
IS_CLANG := $(findstring clang,$(shell $(CC) --version 2>/dev/null | head -1))
# clang: a PTX template of kernels/chase.c is a format string held in a table
WARN += $(if $(IS_CLANG),-Wno-format-security)
CPPFLAGS += -D_GNU_SOURCE -I. -DGD_SOURCE_DIR='"$(CURDIR)"'
CFLAGS ?= -O2 -g
CFLAGS += -std=c11 $(WARN) -MMD -MP
LDLIBS += -ljansson -linih -lhwloc -lz -ldl -lm

ifneq ($(SAN),)
# clang's UBSan also checks float-to-integer casts out of range (gcc's lacks it)
SAN_UB := undefined$(if $(IS_CLANG),$(comma)float-cast-overflow)
CFLAGS += -O1 -fsanitize=address,$(SAN_UB) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,$(SAN_UB)
endif

ifeq ($(HAVE_CUDA),1)
CPPFLAGS += -DGD_HAVE_CUDA -isystem $(CUDA_HOME)/include
endif

LIB_SRC := $(filter-out host/main.c,$(wildcard host/*.c kernels/*.c kernels/workloads/*.c sim/*.c analysis/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
BENCH_SRC := $(wildcard bench/bench_*.c)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)

# slurm-wlm and munge: tests/test_fleet_slurm.c brings up a one-host Slurm;
# zlib1g-dev: the samples each run keeps for `infer` (LABEL.samples.gz)
# clang: `make fuzz` (libFuzzer) and the float-cast-overflow check of `make test SAN=1`
# linux-perf: profiling the simulator (README: Speed); no target runs it
DEB_PKGS := gcc make gnuplot-nox libhwloc-dev libcmocka-dev libjansson-dev libinih-dev \
            slurm-wlm munge zlib1g-dev clang linux-perf

.PHONY: all deps demo test bench valgrind clean tests-build check-layout recovery rescore fuzz fuzz-build
all: $(BIN)


# The simulator (sim/*.c, and the address maps it calls on every access) is
# built with profile feedback and link-time optimization (issue 18): its files
# are compiled once with -fprofile-generate, linked into a training binary that
# runs a few short sweeps of the bundled GPUs (SIM_TRAIN), then compiled again
# with -fprofile-use -flto.  gpudissect and the benchmarks link those objects
# whole (gcc inlines across the simulator's files at their link, about 2 s);
# libgd.a, which the tests link, holds them joined into one ordinary object by
# a relocatable link (gcc -r).  The training runs again whenever a source
# changes.  gcc only; off under SAN=1 and with SIM_OPT=0 (plain -O2 objects).
SIM_SRC := $(wildcard sim/*.c) analysis/arch_mem.c
SIM_OPT ?= $(if $(SAN)$(IS_CLANG),0,1)
LIB_BASE_OBJ := $(filter-out $(SIM_SRC:%.c=$(BUILD)/%.o),$(LIB_OBJ))
ifeq ($(SIM_OPT),1)
PGO := $(BUILD)/pgo
PGO_GEN_OBJ := $(SIM_SRC:%.c=$(PGO)/gen/%.o)
PGO_USE_OBJ := $(SIM_SRC:%.c=$(PGO)/use/%.o)
LIB_LINK_OBJ := $(LIB_BASE_OBJ) $(BUILD)/sim-opt.o
PGO_USE := -fprofile-use -fprofile-partial-training -Wno-missing-profile
LINK_FLAGS := $(filter-out -MMD -MP,$(CFLAGS)) $(LDFLAGS) -flto=auto $(PGO_USE)
# what gpudissect and the benchmarks link: the simulator whole, then the rest
BIN_LINK := $(PGO_USE_OBJ) $(BUILD)/libgd-base.a
# one profile name for both compiles of a file (PGO/prof/sim_x.gcda): gcc
# numbers a file's static functions by its output name, so the two objects'
# own names would not find each other's counts
pgo_name = -dumpdir $(abspath $(PGO))/prof/ -dumpbase $(subst /,_,$(1))
# the training: each command a sweep of well under a second on the
# instrumented binary (one thread, the chains, sliced L2 and TLBs, the
# instruction fetch, constant caches, every SM streaming, an L1 set, the MSHRs,
# shared-memory banks, every SM's L2 hits, warps of two SMs fetching code)
SIM_TRAIN := \
  "run --device sim:t4 --probe pchase --sweep 1KiB:4MiB" \
  "run --device sim:a100 --probe pchase --sweep 16KiB:2MiB:4" \
  "run --device sim:t4 --probe icache_seq --sweep 4KiB:256KiB:4" \
  "run --device sim:t4 --probe const_seq --sweep 1KiB:64KiB:4" \
  "run --device sim:tiny --probe bandwidth --sweep 64KiB:256KiB:2" \
  "run --device sim:t4 --probe pchase_fine --sweep 4:64:4" \
  "run --device sim:t4 --probe mshr --sweep 8:256:3" \
  "run --device sim:t4 --probe smem_bank --sweep 4:128" \
  "run --device sim:t4 --probe l2_slice --sweep 128:1KiB:+128" \
  "run --device sim:t4 --probe icache_av --variant other_sm --footprint 16KiB --sweep 2KiB:64KiB:4"

.SECONDARY: $(PGO_GEN_OBJ) $(PGO_USE_OBJ)

$(PGO)/gen/%.o: %.c $(CC_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -flto -fprofile-generate -fprofile-update=single $(call pgo_name,$*) -c -o $@ $<

$(PGO)/gd-train: $(BUILD)/host/main.o $(PGO_GEN_OBJ) $(BUILD)/libgd-base.a
	$(CC) $(filter-out $(PGO_USE),$(LINK_FLAGS)) -fprofile-generate -fprofile-update=single -o $@ $^ $(LDLIBS)

$(PGO)/profile.stamp: $(PGO)/gd-train Makefile
	@rm -rf $(PGO)/prof $(PGO)/train
	@for c in $(SIM_TRAIN); do \
	  $(PGO)/gd-train $$c --chained -j 1 --quiet --out $(PGO)/train >/dev/null || \
	    { echo "sim training failed: gpudissect $$c"; exit 1; }; rm -rf $(PGO)/train; \
	done
	@touch $@

$(PGO)/use/%.o: %.c $(PGO)/profile.stamp
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -flto $(PGO_USE) $(call pgo_name,$*) -c -o $@ $<

$(BUILD)/sim-opt.o: $(PGO_USE_OBJ)
	$(CC) $(LINK_FLAGS) -r -flinker-output=nolto-rel -o $@ $^
else
LIB_LINK_OBJ := $(LIB_OBJ)
LINK_FLAGS := $(LDFLAGS)
BIN_LINK := $(BUILD)/libgd.a
endif

$(BUILD)/libgd-base.a: $(LIB_BASE_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libgd.a: $(LIB_LINK_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BIN): $(BUILD)/host/main.o $(BIN_LINK)
	$(CC) $(LINK_FLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/bench/%: bench/%.c $(BIN_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(LINK_FLAGS) -o $@ $^ $(LDLIBS)

# One build directory, one compiler: `make test SAN=1` takes clang where it is
# installed and gcc elsewhere, and objects or mock libraries of the other one
# left in build-san would mix two sanitizer runtimes ("incompatible ASan
# runtimes").  The stamp names the compiler; a new one rebuilds everything.
CC_STAMP := $(BUILD)/.cc-$(notdir $(firstword $(CC)))
$(CC_STAMP):
	@mkdir -p $(BUILD)
	@rm -f $(BUILD)/.cc-*
	@touch $@

$(BUILD)/%.o: %.c $(CC_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/%.c $(BUILD)/libgd.a $(wildcard tests/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libgd.a -lcmocka $(LDLIBS)


# The fuzz targets (tests/fuzz/): the replay of their reproducers is a plain
# test; `make fuzz` builds them again with clang and libFuzzer.
FUZZ_SRC := $(filter-out tests/fuzz/fuzz_entry.c,$(wildcard tests/fuzz/*.c))
$(BUILD)/tests/test_fuzz_replay: tests/test_fuzz_replay.c $(FUZZ_SRC) tests/fuzz/fuzz.h $(BUILD)/libgd.a $(wildcard tests/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(filter-out -MMD -MP,$(CFLAGS)) $(LDFLAGS) -o $@ $< $(FUZZ_SRC) $(BUILD)/libgd.a -lcmocka $(LDLIBS)

FUZZ_CC ?= clang
FUZZ_BUILD := build-fuzz
FUZZ_TARGETS ?= arch set suite expr sweep ptx results cubin probe sim
SECONDS ?= 60
FUZZ_SAN := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_WARN := -Wall -Wextra  # not -Werror: the gate is gcc's; clang warns of other things
FUZZ_CFLAGS := -std=c11 -g -O1 $(FUZZ_WARN) $(FUZZ_SAN)
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_BUILD)/%.o)
FUZZ_SUPPORT_OBJ := $(FUZZ_SRC:%.c=$(FUZZ_BUILD)/%.o)

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

$(FUZZ_BUILD)/libgd.a: $(FUZZ_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_entry.c $(FUZZ_SUPPORT_OBJ) $(FUZZ_BUILD)/libgd.a tests/fuzz/fuzz.h
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer -DGD_FUZZ_TARGET=gd_fuzz_$* -o $@ $< \
	    $(FUZZ_SUPPORT_OBJ) $(FUZZ_BUILD)/libgd.a $(LDLIBS)

fuzz-build: $(BIN) $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

# Each target from its seeds (bundled files, emitted PTX: tests/fuzz/seed.sh)
# and its reproducers, with its dictionary; new inputs go to the corpus, a
# crash to build-fuzz/crashes/TARGET-*, and the run stops at the first.
fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$t $(FUZZ_BUILD)/crashes; \
	  GD_BIN=./$(BIN) tests/fuzz/seed.sh $$t $(FUZZ_BUILD)/corpus/$$t || exit 1; \
	  dict=tests/fuzz/dict/$$t.dict; [ -f $$dict ] || dict=tests/fuzz/dict/ptx.dict; \
	  echo "fuzz $$t: $(SECONDS) s"; \
	  $(FUZZ_BUILD)/fuzz_$$t -max_total_time=$(SECONDS) -timeout=20 -rss_limit_mb=3072 \
	      -max_len=65536 -dict=$$dict -artifact_prefix=$(FUZZ_BUILD)/crashes/$$t- -print_final_stats=1 \
	      $(FUZZ_BUILD)/corpus/$$t tests/fuzz/regress/$$t 2>&1 | tee $(FUZZ_BUILD)/$$t.log | \
	      grep -E '^(stat::|==[0-9]+==ERROR|SUMMARY|Done|INFO: -max_total_time)' ; \
	  if grep -q 'ERROR\|SUMMARY\|deadly signal\|Test unit written' $(FUZZ_BUILD)/$$t.log; then \
	    echo "fuzz $$t: CRASH (see $(FUZZ_BUILD)/$$t.log)"; exit 1; fi; \
	done

# The fake libcuda that tests/test_cuda_backend loads through GPUDISSECT_LIBCUDA
# (it finds it next to itself, or via GD_MOCK_LIBCUDA).
MOCK_CUDA_SRC := $(wildcard tests/mock_libcuda*.c)
$(BUILD)/tests/libmockcuda.so: $(MOCK_CUDA_SRC) tests/mock_libcuda.h $(CC_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -shared $(LDFLAGS) -o $@ $(MOCK_CUDA_SRC)

# The fake NVML that tests/test_nvml loads through GPUDISSECT_LIBNVML.
$(BUILD)/tests/libmocknvml.so: tests/mock_libnvml.c tests/mock_libnvml.h $(CC_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -shared $(LDFLAGS) -o $@ tests/mock_libnvml.c

# The fake CUPTI that tests/test_cupti loads through GPUDISSECT_LIBCUPTI.
$(BUILD)/tests/libmockcupti.so: tests/mock_libcupti.c tests/mock_libcupti.h host/cupti_host_abi.h $(CC_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -shared $(LDFLAGS) -o $@ tests/mock_libcupti.c -ldl

$(BUILD)/tests/test_cupti: $(BUILD)/tests/libmockcupti.so $(BUILD)/tests/libmockcuda.so tests/mock_libcupti.h
$(BUILD)/tests/test_nvml: $(BUILD)/tests/libmocknvml.so $(BUILD)/tests/libmockcuda.so tests/mock_libnvml.h
$(BUILD)/tests/test_jit_check: $(BUILD)/tests/libmockcuda.so tests/mock_libcuda.h
$(BUILD)/tests/test_watchdog: $(BUILD)/tests/libmockcuda.so tests/mock_libcuda.h
$(BUILD)/tests/test_cuda_backend: $(BUILD)/tests/libmockcuda.so tests/mock_libcuda.h tests/cuda_test_kernels.h
$(BUILD)/tests/test_fleet: $(BUILD)/tests/libmockcuda.so tests/mock_libcuda.h
$(BUILD)/tests/test_cubin_elf: tests/cuda_test_kernels.h
$(BUILD)/tests/test_sass_patch: tests/cuda_test_kernels.h tests/ptx_toolchain.h

# Install what a fresh Debian machine lacks (via sudo when not root).  nvdisasm
# comes from PyPI when the machine reaches it; the tests that need it say
# "skipped" without it.
deps:
	@missing=""; \
	if command -v dpkg-query >/dev/null 2>&1; then \
	  for p in $(DEB_PKGS); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	  done; \
	else echo "deps: not a Debian system; install:$(DEB_PKGS) by hand"; fi; \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing$$missing"; \
	  if [ "$$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi; \
	  $$sudo apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$missing || exit 1; \
	fi
	@if ! tests/find-nvdisasm.sh >/dev/null 2>&1; then \
	  python3 -m pip install -q nvidia-cuda-nvdisasm >/dev/null 2>&1 || \
	  python3 -m pip install -q --user nvidia-cuda-nvdisasm >/dev/null 2>&1 || \
	  echo "deps: nvdisasm (PyPI nvidia-cuda-nvdisasm) not installed; SASS checks will be skipped"; \
	fi

tests-build: $(BIN) $(TEST_BIN)

test: deps
	@$(MAKE) --no-print-directory tests-build
	@GD_BIN=./$(BIN) GD_BUILD_DIR=$(BUILD) tests/run-all.sh tests/check-layout.sh $(TEST_BIN)

RECOVERY_CONFIGS ?= 200
RECOVERY_SEED ?= 1000
RECOVERY_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
RECOVERY_KEEP ?=
RECOVERY_RESCORE ?=
BELOW_L1_CONFIGS ?= 60
BELOW_L1_SEED ?= 1
recovery: deps
	@$(MAKE) --no-print-directory $(BIN) $(BUILD)/tests/test_recovery $(BUILD)/tests/test_big_l2 \
	    $(BUILD)/tests/test_below_l1_recovery $(BUILD)/tests/test_below_l1
	@GD_BIN=./$(BIN) GD_RECOVERY_CONFIGS=$(RECOVERY_CONFIGS) GD_RECOVERY_SEED=$(RECOVERY_SEED) \
	    GD_RECOVERY_JOBS=$(RECOVERY_JOBS) GD_RECOVERY_KEEP=$(RECOVERY_KEEP) $(BUILD)/tests/test_recovery
	@GD_BIN=./$(BIN) GD_BELOW_L1_CONFIGS=$(BELOW_L1_CONFIGS) GD_BELOW_L1_SEED=$(BELOW_L1_SEED) \
	    $(BUILD)/tests/test_below_l1_recovery
	@GD_BIN=./$(BIN) GD_BIG_L2=1 $(BUILD)/tests/test_big_l2
	@GD_BIN=./$(BIN) GD_BIG_L2=1 GD_TEST_FILTER=test_characterize_h100 $(BUILD)/tests/test_below_l1

rescore:
	@test -n "$(RECOVERY_RESCORE)" || { echo "make rescore: set RECOVERY_RESCORE=DIR (a sweep kept with RECOVERY_KEEP=DIR)"; exit 2; }
	@$(MAKE) --no-print-directory $(BIN) $(BUILD)/tests/test_recovery
	@GD_BIN=./$(BIN) GD_RECOVERY_CONFIGS=$(RECOVERY_CONFIGS) GD_RECOVERY_SEED=$(RECOVERY_SEED) \
	    GD_RECOVERY_JOBS=$(RECOVERY_JOBS) GD_RECOVERY_RESCORE=$(RECOVERY_RESCORE) \
	    GD_TEST_FILTER=test_recovery $(BUILD)/tests/test_recovery

check-layout: $(LIB_OBJ)
	@GD_BUILD_DIR=$(BUILD) tests/check-layout.sh

valgrind: deps
	@$(MAKE) --no-print-directory tests-build
	@GD_VALGRIND=1 GD_BIN=./$(BIN) tests/run-all.sh $(BUILD)/tests/test_arch $(BUILD)/tests/test_sim_exec \
	    $(BUILD)/tests/test_sim_pchase $(BUILD)/tests/test_cubin_elf $(BUILD)/tests/test_cuda_backend \
	    $(BUILD)/tests/test_sass_patch $(BUILD)/tests/test_sim_lsu $(BUILD)/tests/test_nvml \
	    $(BUILD)/tests/test_cupti $(BUILD)/tests/test_jit_check $(BUILD)/tests/test_fuzz_replay \
	    $(BUILD)/tests/test_pcm_wbuf $(BUILD)/tests/test_write_skew $(BUILD)/tests/test_sim_dram \
	    $(BUILD)/tests/test_store_path $(BUILD)/tests/test_checkpoint $(BUILD)/tests/test_sim_vector
	@valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	    ./$(BIN) run --device sim:tiny --probe pchase --sweep 1KiB:64KiB --out /tmp/gd-valgrind-run --quiet >/dev/null \
	    && echo "ok    gpudissect run (valgrind)"
	@valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	    ./$(BIN) run --device sim:cn110457238 --probe resv_stall --stride 4096 --sweep 6:6 --samples 1 \
	    --trace --out /tmp/gd-valgrind-trace --quiet >/dev/null \
	    && echo "ok    gpudissect run --trace (valgrind)"
	@valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	    ./$(BIN) run --device sim:a100 --probe pchase --sweep 1KiB:64KiB -j 1 --out /tmp/gd-valgrind-a100 \
	    --quiet >/dev/null && echo "ok    gpudissect run on sliced L2, TLBs, DRAM rows (valgrind)"
	@valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	    ./$(BIN) characterize --device sim:tiny -j 2 --out /tmp/gd-valgrind-steps --quiet >/dev/null \
	    && echo "ok    gpudissect characterize, steps, points and plots in worker processes (valgrind)"
	@valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	    ./$(BIN) whatif --device sim:pcm --workloads vecadd --vary WB.size=0,64KiB --trace \
	    --out /tmp/gd-valgrind-whatif --quiet >/dev/null \
	    && echo "ok    gpudissect whatif --trace, PCM and its write buffer (valgrind)"

bench: deps
	@$(MAKE) --no-print-directory $(BIN) $(BENCH_BIN)
	@for b in $(BENCH_BIN); do $$b ./$(BIN) || exit 1; done

demo: deps
	@$(MAKE) --no-print-directory $(BIN)
	./$(BIN) characterize --device sim:t4 --suite quick --out results/demo
	@echo "report: results/demo/report.md, plots: results/demo/plots/"

clean:
	rm -rf build build-san build-fuzz gpudissect gpudissect-san

-include $(LIB_OBJ:.o=.d) $(BUILD)/host/main.d $(PGO_GEN_OBJ:.o=.d) $(PGO_USE_OBJ:.o=.d) $(wildcard $(FUZZ_BUILD)/*/*.d $(FUZZ_BUILD)/*/*/*.d)
