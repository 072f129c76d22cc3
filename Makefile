# Builds one binary per CC variant (config/variants.tsv) in three flavors:
#   release  build/bin/rundb-<variant>          -O2 -g, jemalloc
#   asan     build/asan/bin/rundb-<variant>     AddressSanitizer + UBSan (system malloc)
#   tsan     build/tsan/bin/rundb-<variant>     ThreadSanitizer (system malloc)
# Targets: all (release), run (main job), test (the fast tier), check (the rest: sanitizers,
#   long cases, mutation, shared writes), bench, figures, asan, tsan, unit, mutation,
#   shared-writes, anomalies (the isolation anomaly matrix), anomaly-mutants, deps, clean.
# Make variables: INDEX=own|tbb (hash index), VARIANT=<name> (build just one), STATS=0|1.

CC := gcc
CXX := g++
INDEX ?= own
STATS ?= 1

ifeq ($(filter $(INDEX),own tbb),)
$(error INDEX must be own or tbb, not '$(INDEX)')
endif
ifeq ($(filter $(STATS),0 1),)
$(error STATS must be 0 or 1, not '$(STATS)')
endif

VARIANT_TABLE := config/variants.tsv
ALL_VARIANTS := $(shell awk 'NF && substr($$1, 1, 1) != "\043" {print $$1}' $(VARIANT_TABLE))
ifdef VARIANT
ifeq ($(filter $(VARIANT),$(ALL_VARIANTS)),)
$(error unknown variant '$(VARIANT)'; known: $(ALL_VARIANTS))
endif
VARIANTS := $(VARIANT)
else
VARIANTS := $(ALL_VARIANTS)
endif

variant_meta = $(shell awk '$$1=="$(1)" {print $$2}' $(VARIANT_TABLE))
variant_srcs = $(subst $(comma), ,$(shell awk '$$1=="$(1)" {print $$3}' $(VARIANT_TABLE)))
variant_flags = $(shell awk '$$1=="$(1)" {for (i = 4; i <= NF; i++) printf "%s ", $$i}' $(VARIANT_TABLE))
comma := ,

# Mutation tests (tests/mutants.tsv): build/mutants/rundb-<mutant> is the release build of
# a base variant with one injected protocol bug (-DMUTANT_...); test-only, never in bin/.
MUTANT_TABLE := tests/mutants.tsv
MUTANTS := $(sort $(shell awk 'NF && substr($$1, 1, 1) != "\043" {print $$1}' $(MUTANT_TABLE)))
mutant_base = $(shell awk '$$1=="$(1)" {print $$2; exit}' $(MUTANT_TABLE))
mutant_flag = $(shell awk '$$1=="$(1)" {print $$3; exit}' $(MUTANT_TABLE))
MUTANT_BASES := $(sort $(foreach m,$(MUTANTS),$(call mutant_base,$(m))))

# INDEX=tbb builds land apart, so the two index kinds never mix objects or binaries.
ifeq ($(INDEX),own)
B := build
else
B := build/index-$(INDEX)
endif

# V=1 shows the full commands.
ifeq ($(V),1)
Q :=
else
Q := @
endif

GIT_REV := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)

COMMON_CFLAGS := -std=c11 -Wall -Wextra -Werror -g -I. -D_GNU_SOURCE -pthread \
	-DSTATS_ENABLED=$(STATS)
# x86-64: __builtin_prefetch(p, 1) becomes PREFETCHW (the line comes in exclusive, ready
# for the write or compare-and-swap that follows); without -mprfchw gcc emits a read
# prefetch. CPUs without the instruction run it as a no-op.
ifeq ($(shell uname -m),x86_64)
COMMON_CFLAGS += -mprfchw
endif
COMMON_CXXFLAGS := -std=c++17 -Wall -Wextra -Werror -g -I. -pthread

FLAVOR_CFLAGS_release := -O2 -flto=auto
FLAVOR_CFLAGS_asan := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -DMEM_SYSTEM_MALLOC
FLAVOR_CFLAGS_tsan := -O1 -fsanitize=thread -DMEM_SYSTEM_MALLOC
FLAVOR_CFLAGS_shw := -O2 -DCOUNT_SHARED_WRITES=1
FLAVOR_LIBS_release := -ljemalloc
FLAVOR_LIBS_asan :=
FLAVOR_LIBS_tsan :=
FLAVOR_LIBS_shw := -ljemalloc
FLAVOR_BIN_release := $(B)/bin
FLAVOR_BIN_asan := $(B)/asan/bin
FLAVOR_BIN_tsan := $(B)/tsan/bin
FLAVOR_BIN_shw := $(B)/shw/bin

LIBS := -lnuma -lhwloc -ltbb -lstdc++ -lm

GENERIC_SRCS := $(wildcard storage/*.c cc/*.c benchmarks/*.c)
ALG_SRCS := $(sort $(foreach v,$(ALL_VARIANTS),$(call variant_srcs,$(v))))
GENERIC_SRCS := $(filter-out $(ALG_SRCS) storage/index_hash.c,$(GENERIC_SRCS))
INDEX_SRC_own := storage/index_hash.c
INDEX_SRC_tbb := storage/index_tbb_hash.cpp
INDEX_SRCS := $(INDEX_SRC_$(INDEX)) storage/index_tbb_ordered.cpp
# C++ files of the generic code, in every variant and flavor (the unit tests' too)
GENERIC_CXX_SRCS := cc/geo_deploy.cpp

.PHONY: all run test check bench figures asan tsan unit deps clean mutation shared-writes \
	anomalies anomaly-mutants
all: $(foreach v,$(VARIANTS),$(B)/bin/rundb-$(v))

# Generic code is compiled once per (flavor, CC_META_SIZE): it never depends on the
# algorithm, only on the size of the per-row slot. The algorithm's files and the build
# info (variant name, flags, git revision; rebuilt at every link) are per variant.
GENERIC_OBJ_NAMES := $(patsubst %,%.o,$(filter-out benchmarks/build_info.c,$(GENERIC_SRCS)) $(INDEX_SRCS) \
	$(GENERIC_CXX_SRCS))
META_SIZES := $(sort $(foreach v,$(VARIANTS) $(MUTANT_BASES),$(call variant_meta,$(v))) 8)

# $(1) flavor, $(2) metadata size
define META_RULES
$(B)/$(1)/obj/meta$(2)/%.c.o: %.c Makefile
	@mkdir -p $$(@D)
	@$(if $(Q),echo "  CC   $(1)/meta$(2)/$$<")
	$(Q)$(CC) $(COMMON_CFLAGS) $(FLAVOR_CFLAGS_$(1)) -DCC_META_SIZE=$(2) -MMD -MP -c $$< -o $$@
$(B)/$(1)/obj/meta$(2)/%.cpp.o: %.cpp Makefile
	@mkdir -p $$(@D)
	@$(if $(Q),echo "  CXX  $(1)/meta$(2)/$$<")
	$(Q)$(CXX) $(COMMON_CXXFLAGS) $(filter-out -DMEM_SYSTEM_MALLOC,$(FLAVOR_CFLAGS_$(1))) -MMD -MP -c $$< -o $$@
-include $(patsubst %.o,$(B)/$(1)/obj/meta$(2)/%.d,$(GENERIC_OBJ_NAMES))
endef

# $(1) flavor, $(2) variant, $(3) build name, $(4) bin dir, $(5) extra compile flags of the
# algorithm's files (a mutant's -DMUTANT_..., see tests/mutants.tsv; empty for a variant)
define VARIANT_RULES
OBJS_$(1)_$(3) := $(patsubst %,$(B)/$(1)/obj/meta$(call variant_meta,$(2))/%,$(GENERIC_OBJ_NAMES)) \
	$(patsubst %,$(B)/$(1)/obj/$(3)/%.o,$(call variant_srcs,$(2)))
$(B)/$(1)/obj/$(3)/%.c.o: %.c $(VARIANT_TABLE) $(if $(5),$(MUTANT_TABLE)) Makefile
	@mkdir -p $$(@D)
	@$(if $(Q),echo "  CC   $(1)/$(3)/$$<")
	$(Q)$(CC) $(COMMON_CFLAGS) $(FLAVOR_CFLAGS_$(1)) -DCC_META_SIZE=$(call variant_meta,$(2)) \
		$(call variant_flags,$(2)) $(5) -MMD -MP -c $$< -o $$@
$(4)/rundb-$(3): $$(OBJS_$(1)_$(3)) benchmarks/build_info.c $(B)/git-rev
	@mkdir -p $$(@D) $(B)/$(1)/obj/$(3)
	@$(if $(Q),echo "  LINK $$@")
	$(Q)$(CC) $(COMMON_CFLAGS) $(FLAVOR_CFLAGS_$(1)) -DBUILD_VARIANT='"$(3)"' \
		-DBUILD_VARIANT_FLAGS='"$(strip $(call variant_flags,$(2)) $(5))"' -DBUILD_GIT_REV='"$(GIT_REV)"' \
		-c benchmarks/build_info.c -o $(B)/$(1)/obj/$(3)/build_info.o
	$(Q)$(CC) $(FLAVOR_CFLAGS_$(1)) -pthread -rdynamic $$(OBJS_$(1)_$(3)) $(B)/$(1)/obj/$(3)/build_info.o \
		-o $$@.tmp $(FLAVOR_LIBS_$(1)) $(LIBS) && mv $$@.tmp $$@
-include $(patsubst %,$(B)/$(1)/obj/$(3)/%.d,$(call variant_srcs,$(2)))
endef

$(foreach f,release asan tsan shw,$(foreach m,$(META_SIZES),$(eval $(call META_RULES,$(f),$(m)))))
$(foreach f,release asan tsan shw,$(foreach v,$(VARIANTS),\
	$(eval $(call VARIANT_RULES,$(f),$(v),$(v),$(FLAVOR_BIN_$(f))))))
$(foreach m,$(MUTANTS),$(eval $(call VARIANT_RULES,release,$(call mutant_base,$(m)),$(m),$(B)/mutants,\
	$(call mutant_flag,$(m)))))
$(foreach m,$(MUTANTS),$(eval $(call VARIANT_RULES,asan,$(call mutant_base,$(m)),$(m),$(B)/asan/mutants,\
	$(call mutant_flag,$(m)))))
# Rewritten only when the revision (or dirtiness) changes, so binaries relink then.
$(B)/git-rev: FORCE
	@mkdir -p $(@D)
	@echo '$(GIT_REV)' | cmp -s - $@ || echo '$(GIT_REV)' >$@
.PHONY: FORCE
FORCE:

asan: $(foreach v,$(VARIANTS),$(B)/asan/bin/rundb-$(v))
tsan: $(foreach v,$(filter-out none,$(VARIANTS)),$(B)/tsan/bin/rundb-$(v))

# Unit tests: each tests/unit/test_<name>.c links the generic objects of the `none`
# variant's asan flavor (sanitized, algorithm-free code paths). test_index is also
# linked against the other hash index (test_index_other).
UNIT_TESTS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(wildcard tests/unit/test_*.c))
UNIT_OBJS := $(filter-out %/benchmarks/main.c.o,$(OBJS_asan_none))
OTHER_INDEX_SRC := $(if $(filter own,$(INDEX)),$(INDEX_SRC_tbb),$(INDEX_SRC_own))
OTHER_INDEX_OBJ := $(B)/asan/obj/other-index/$(OTHER_INDEX_SRC).o
UNIT_OBJS += $(B)/tests/build_info.o
$(B)/tests/build_info.o: benchmarks/build_info.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(COMMON_CFLAGS) $(FLAVOR_CFLAGS_asan) -DBUILD_VARIANT='"unit-test"' \
		-DBUILD_VARIANT_FLAGS='""' -DBUILD_GIT_REV='"$(GIT_REV)"' -c $< -o $@
$(B)/tests/%: tests/unit/%.c $(UNIT_OBJS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  TEST $@")
	$(Q)$(CC) $(COMMON_CFLAGS) $(FLAVOR_CFLAGS_asan) -DCC_META_SIZE=8 -MMD -MP -MF $@.d $< $(UNIT_OBJS) -o $@ $(LIBS)
# a test includes headers (storage/mem_cache.h, cc/txn.h) whose change must rebuild it
-include $(UNIT_TESTS:=.d)
$(B)/asan/obj/other-index/%.cpp.o: %.cpp Makefile
	@mkdir -p $(@D)
	$(Q)$(CXX) $(COMMON_CXXFLAGS) $(filter-out -DMEM_SYSTEM_MALLOC,$(FLAVOR_CFLAGS_asan)) -c $< -o $@
$(B)/asan/obj/other-index/%.c.o: %.c Makefile
	@mkdir -p $(@D)
	$(Q)$(CC) $(COMMON_CFLAGS) $(FLAVOR_CFLAGS_asan) -c $< -o $@
$(B)/tests/test_index_other: tests/unit/test_index.c $(UNIT_OBJS) $(OTHER_INDEX_OBJ)
	@$(if $(Q),echo "  TEST $@")
	$(Q)$(CC) $(COMMON_CFLAGS) $(FLAVOR_CFLAGS_asan) -DCC_META_SIZE=8 $< \
		$(filter-out %/$(INDEX_SRC_$(INDEX)).o,$(UNIT_OBJS)) $(OTHER_INDEX_OBJ) -o $@ $(LIBS)
# Variant tests: tests/variant/test_<name>.c, whose first line reads
# "/* variants: v1 v2 ... */", is linked against each listed variant's asan objects
# (the algorithm under test) as $(B)/tests/test_<name>-<variant>, compiled with the
# variant's flags (so headers the algorithm shares, cc/ts_store.h, match it). A listed mutant
# (tests/mutants.tsv) is linked the same way, compiled with -DVTEST_MUTANT and the mutant's
# own -DMUTANT_... flag (which mutant it is): the test then asserts that it sees its bug.
vtest_base = $(if $(filter $(1),$(MUTANTS)),$(call mutant_base,$(1)),$(1))
VTEST_SRCS := $(wildcard tests/variant/test_*.c)
vtest_variants = $(filter $(VARIANTS) $(MUTANTS),$(shell sed -n '1s|^/\* variants:\(.*\)$$|\1|p' $(1)))
VTESTS := $(foreach f,$(VTEST_SRCS),$(foreach v,$(call vtest_variants,$(f)),\
	$(B)/tests/$(basename $(notdir $(f)))-$(v)))
define VTEST_RULE
$(B)/tests/$(basename $(notdir $(1)))-$(2): $(1) $$(filter-out %/benchmarks/main.c.o,$$(OBJS_asan_$(2))) $(B)/tests/build_info.o
	@mkdir -p $$(@D)
	@$(if $(Q),echo "  TEST $$@")
	$(Q)$(CC) $(COMMON_CFLAGS) $(FLAVOR_CFLAGS_asan) -DCC_META_SIZE=$(call variant_meta,$(call vtest_base,$(2))) \
		$(call variant_flags,$(call vtest_base,$(2))) \
		$(if $(filter $(2),$(MUTANTS)),-DVTEST_MUTANT $(call mutant_flag,$(2))) -MMD -MP -MF $$@.d \
		$$^ -o $$@ $(LIBS)
-include $(B)/tests/$(basename $(notdir $(1)))-$(2).d
endef
$(foreach f,$(VTEST_SRCS),$(foreach v,$(call vtest_variants,$(f)),$(eval $(call VTEST_RULE,$(f),$(v)))))
# the variant tests of mutants belong to the mutation tests (`make mutation`)
VTESTS_OF_VARIANTS := $(foreach f,$(VTEST_SRCS),$(foreach v,$(filter-out $(MUTANTS),$(call vtest_variants,$(f))),\
	$(B)/tests/$(basename $(notdir $(f)))-$(v)))

unit: $(UNIT_TESTS) $(B)/tests/test_index_other $(VTESTS_OF_VARIANTS)

NPROC := $(shell nproc 2>/dev/null || echo 2)

# The set-up commands install missing Debian packages first, then build, then run.
deps:
	@tests/install_deps.sh

run:
	@tests/install_deps.sh && $(MAKE) --no-print-directory -j$(NPROC) all && experiments/default.sh

# The fast tier (README's test command, before every commit) and the rest (`make check`,
# which CI runs after `make test`): tests/run.sh fast|slow, then the mutation tests and
# the shared-writes check.
test:
	@tests/install_deps.sh plots cluster && $(MAKE) --no-print-directory -j$(NPROC) all && tests/run.sh fast

# (each part runs even when one before failed; the target fails if any did)
check:
	@tests/install_deps.sh plots cluster && $(MAKE) --no-print-directory -j$(NPROC) all asan tsan unit && \
		{ tests/run.sh slow; a=$$?; $(MAKE) --no-print-directory mutation; b=$$?; \
		  $(MAKE) --no-print-directory shared-writes; c=$$?; [ "$$a$$b$$c" = 000 ]; }

bench:
	@tests/install_deps.sh && $(MAKE) --no-print-directory -j$(NPROC) all && experiments/bench.sh

# Mutation tests: the mutants of tests/mutants.tsv and their clean base variants.
mutation:
	@tests/install_deps.sh && $(MAKE) --no-print-directory -j$(NPROC) \
		$(foreach m,$(MUTANTS),$(B)/mutants/rundb-$(m)) \
		$(foreach v,$(MUTANT_BASES),$(B)/bin/rundb-$(v)) $(VTESTS) && tests/mutation_test.sh

# Shared writes per transaction, per variant, counted by a debug build (storage/
# shared_writes.h); checks them against the table in docs/algorithms.md and the
# no-global-write rule.
shared-writes:
	@tests/install_deps.sh && $(MAKE) --no-print-directory -j$(NPROC) \
		$(foreach v,$(VARIANTS),$(B)/shw/bin/rundb-$(v)) && /usr/bin/python3 tests/shared_writes.py

# The isolation anomaly matrix (docs/anomalies.md): every case on every variant
# (VARIANT=v: that one), one Markdown table; the mutants of tests/mutants.tsv through it,
# beside one --verify run each.
anomalies:
	@tests/install_deps.sh && $(MAKE) --no-print-directory -j$(NPROC) all && \
		tests/anomalies.sh --bin $(B)/bin $(VARIANTS)
anomaly-mutants:
	@tests/install_deps.sh && $(MAKE) --no-print-directory -j$(NPROC) \
		$(foreach m,$(MUTANTS),$(B)/mutants/rundb-$(m)) \
		$(foreach v,$(MUTANT_BASES),$(B)/bin/rundb-$(v)) && BUILD_DIR=$(B) tests/anomaly_mutants.sh

# Every spec of experiments/specs at the quick scale, every figure into results/figures.
figures:
	@tests/install_deps.sh plots && $(MAKE) --no-print-directory -j$(NPROC) all && experiments/figures.sh

clean:
	rm -rf build
