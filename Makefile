# nnl: one build for the library, the passes, the tests and the pages.
#   make            build every executable into bin/
#   make check      unit, golden, schema and command-line tests, the
#                   library's layering (check-layers) and the
#                   harness's own (check-harness)
#   make install    PREFIX=/usr/local (DESTDIR honoured)
#   make check-asan the unit and command-line tests under ASan+UBSan
.POSIX:
.SUFFIXES:

CC      = cc
# Where objects and programs go; the sanitizer build sets both.
B       = build
BIN     = bin
PREFIX  = /usr/local
WARN    = -Wall -Wextra -Werror -Wno-unused-parameter -Wshadow -Wvla
OPT     = -O2
CFLAGS  = -std=c11 $(OPT) -g $(WARN) $(SAN)
# Linked into every program of the sanitizer build: UBSan's reports
# into log files (tests/harness/ubsan_log.c).
SANOBJ  =
DEPCFLAGS = $$(pkg-config --cflags libcjson libzip 2>/dev/null)
LDLIBS  = $$(pkg-config --libs libcjson libzip 2>/dev/null || echo -lcjson -lzip) -lxxhash -lz -lm
# The ONNX importer's protobuf code, generated from Debian's onnx.proto.
ONNXPROTO = /usr/include/onnx/onnx.proto
ONNX    = onnx_read onnx_import onnx_emit onnx_names onnx_ew onnx_loss \
          onnx_tensor onnx_einsum \
          onnx_nn onnx_rnn onnx_resize onnx_detect onnx_origin \
          onnx_strict onnx_attn onnx_ctl onnx_qint onnx_unpool \
          onnx_signal onnx_bounded onnx_train
ONNXOBJ = $(B)/onnx/onnx.pb-c.o $(ONNX:%=$(B)/onnx/%.o)

# One executable per pass: passes/NAME.c -> bin/nnl-NAME.
PASSES  = parse pack-weights reorder shape-infer fuse plan-memory \
          emit-c emit-js run onnx-import cpu-partition emit-dot
# Modules of the shared library, each common/STAGE/NAME.c, by stage
# from the bottom up (common/LAYERS says which stage may use which;
# the ONNX importer, in common/onnx, only nnl-onnx-import links).
COMMON  = core/util core/buf core/outfile core/dtype core/ops core/graph \
          core/json core/jsonput core/jsonerr core/checked core/heap \
          core/pipeline core/opts core/escape core/markup core/strtab \
          core/infile core/uses core/threads core/progress core/modelpath
COMMON += formats/load formats/validate formats/webnn_read \
          formats/webnn_write formats/constdata formats/npy formats/npz \
          formats/weights formats/sidecar formats/dimsfile \
          formats/packgraph formats/rawbin
COMMON += host/kernel host/kern_ew host/kern_nn host/kern_rnn \
          host/kern_tensor host/eval
COMMON += middle/order middle/memplan middle/memplan_verify middle/shape \
          middle/shape_rule middle/shape_ew middle/shape_nn middle/shape_nd \
          middle/shape_tensor middle/shape_num \
          middle/fuse \
          middle/fuse_norm \
          middle/partition
COMMON += nnl/nnl_read nnl/nnl_model nnl/nnl_param nnl/nnl_weight \
          nnl/nnl_lower nnl/nnl_write nnl/nnl_perm nnl/nnl_onnx nnl/summary
COMMON += back/emitc back/emitjs back/dot back/memsvg back/report \
          back/wasmbuild back/emitjs_wasm back/scaffold back/footprint \
          back/emitjs_poly back/emitjs_load
UNIT    = $(COMMON_TESTS)
COMMON_TESTS = test_dtype test_json test_webnn test_npy test_weights \
          test_memplan test_escape test_checked test_gemm \
          test_strtab test_uses test_dwconv test_pool test_markup \
          test_report test_wino test_par test_conv test_vmath

# Runtime kernels (common/rt/FAMILY/NAME.c): in libnnl, and pasted into
# generated code, in this order, where they are static.  libnnl holds
# every SGEMM microkernel of the platform and picks one at run time
# (rt.h).  RTPAR, the thread pool and each family's threaded part, is
# pasted after them only into code built with --threads (never in
# libnnl).
RT      = f32-vmath/vmath f32-gemm/gemm_f32_4x8_scalar f32-gemm/gemm_f32_6x16_avx2 \
          f32-gemm/gemm_f32_14x32_avx512 f32-gemm/gemm_f32_8x8_neon \
          f32-gemm/gemm f32-dwconv/dwconv f32-winograd/wino \
          elementwise/ew nn/nn nn/qint nn/linalg nn/nd rnn/rnn tensor/tensor
RTPAR   = par/par.h par/par.c f32-gemm/gemm_par.c nn/nn_par.c \
          f32-dwconv/dwconv_par.c tensor/tensor_par.c elementwise/ew_par.c
RTINC   = -Icommon/rt -Icommon/rt/par -Icommon/rt/f32-vmath
LIBOBJ  = $(COMMON:%=$(B)/common/%.o) $(RT:%=$(B)/common/rt/%.o)
BINS    = $(PASSES:%=$(BIN)/nnl-%) $(BIN)/nnc
TESTBINS = $(COMMON_TESTS:%=$(B)/tests/%)
HDRS    = $(wildcard common/*/*.h) common/core/ops.def \
          common/core/ops_nnl.def common/rt/rt.h \
          common/rt/kernels.def common/rt/par/par.h \
          common/rt/f32-vmath/vmath.h
# The library's folders, one per stage (common/LAYERS): sources name
# each other's headers by file name alone.
LIBDIRS = core formats host middle onnx nnl back
INC     = -Icommon $(LIBDIRS:%=-Icommon/%)

all: $(BINS) $(BIN)/nnl-infer
all: examples

# The examples' data too large to commit, made by seeded NumPy scripts
# (their expected outputs by NumPy too): the weights of vgg_block and
# feature_extractor, and resnet_head's packed weights, input and output.
EXMADE  = examples/vgg_block/weights/.made \
          examples/feature_extractor/weights/.made
EXDATA  = $(EXMADE) examples/resnet_head/resnet_head.weights
examples: $(EXDATA)
examples/vgg_block/weights/.made: examples/vgg_block/vgg_block.nnl
examples/feature_extractor/weights/.made: \
    examples/feature_extractor/feature_extractor.nnl
$(EXMADE): examples/make_examples.py \
    examples/reference.py | $(BIN)/nnl-parse
	@NNL_BIN=$(BIN) /usr/bin/python3 examples/make_examples.py \
	    $(@:examples/%/weights/.made=%) >/dev/null
	@touch $@
examples/resnet_head/resnet_head.weights: examples/resnet_head/make_weights.py \
    examples/resnet_head/make_expected.py | $(BIN)/nnl-pack-weights
	@/usr/bin/python3 examples/resnet_head/make_weights.py $(B)/examples/resnet_head
	@/usr/bin/python3 examples/resnet_head/make_expected.py \
	    $(B)/examples/resnet_head examples/resnet_head
	@$(BIN)/nnl-pack-weights pack -o $@ $(B)/examples/resnet_head

$(B)/common/%.o: common/%.c $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPCFLAGS) $(INC) -c -o $@ $<

$(B)/common/rt/%.o: common/rt/%.c common/rt/rt.h \
    common/rt/f32-vmath/vmath.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DNNL_RT= -DNNL_RT_DISPATCH $(INC) $(RTINC) -c -o $@ $<

$(B)/libnnl.a: $(LIBOBJ)
	rm -f $@
	ar rcs $@ $(LIBOBJ)

$(B)/passes/%.o: passes/%.c $(HDRS)
	@mkdir -p $(B)/passes
	$(CC) $(CFLAGS) $(DEPCFLAGS) $(INC) -c -o $@ $<

$(BIN)/nnl-%: $(B)/passes/%.o $(B)/libnnl.a $(SANOBJ)
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) -o $@ $< $(B)/libnnl.a $(SANOBJ) $(LDLIBS)

# nnc: the driver, and nnc test's arrays (passes/nnc-test.c)
NNCOBJ  = $(B)/passes/nnc.o $(B)/passes/nnc-test.o
$(NNCOBJ): passes/nnc-test.h
$(BIN)/nnc: $(NNCOBJ) $(B)/libnnl.a $(SANOBJ)
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) -o $@ $(NNCOBJ) $(B)/libnnl.a $(SANOBJ) \
	    $(LDLIBS)

$(B)/onnx/onnx.pb-c.c: $(ONNXPROTO)
	@mkdir -p $(B)/onnx
	cp $(ONNXPROTO) $(B)/onnx/onnx.proto
	cd $(B)/onnx && protoc-c --c_out=. onnx.proto

$(B)/onnx/onnx.pb-c.o: $(B)/onnx/onnx.pb-c.c
	$(CC) -std=c11 $(OPT) -g $(SAN) -I$(B)/onnx -c -o $@ $(B)/onnx/onnx.pb-c.c

$(B)/onnx/%.o: common/onnx/%.c $(HDRS) common/onnx/onnx_ops.def \
    common/onnx/onnx_attrs.def common/onnx/onnx_arity.h $(B)/onnx/onnx.pb-c.c
	$(CC) $(CFLAGS) $(DEPCFLAGS) $(INC) -I$(B)/onnx -c -o $@ $<

$(B)/passes/onnx-import.o: passes/onnx-import.c $(HDRS)
	@mkdir -p $(B)/passes
	$(CC) $(CFLAGS) $(DEPCFLAGS) $(INC) -c -o $@ passes/onnx-import.c

$(BIN)/nnl-onnx-import: $(B)/passes/onnx-import.o $(ONNXOBJ) $(B)/libnnl.a \
    $(SANOBJ)
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) -o $@ $(B)/passes/onnx-import.o $(ONNXOBJ) \
	    $(B)/libnnl.a $(SANOBJ) $(LDLIBS) -lprotobuf-c

# The runtime's sources, embedded in nnl-emit-c for generated code.
$(B)/rtsrc.c: common/rt/rt.h common/rt/f32-vmath/vmath.h \
    $(RT:%=common/rt/%.c) scripts/embed.sh $(RTPAR:%=common/rt/%)
	@mkdir -p $(B)
	sh scripts/embed.sh nnl_rtsrc common/rt/rt.h \
	    common/rt/f32-vmath/vmath.h $(RT:%=common/rt/%.c) > $@
	sh scripts/embed.sh nnl_parsrc $(RTPAR:%=common/rt/%) >> $@

$(B)/rtsrc.o: $(B)/rtsrc.c
	$(CC) -c -o $@ $(B)/rtsrc.c

# XXH3 in JavaScript, pasted into every module nnl-emit-js writes.
$(B)/xxh3js.c: common/rt/js/xxh3.mjs scripts/embed.sh
	@mkdir -p $(B)
	sh scripts/embed.sh nnl_xxh3js common/rt/js/xxh3.mjs > $@

$(B)/xxh3js.o: $(B)/xxh3js.c
	$(CC) -c -o $@ $(B)/xxh3js.c

# The WebAssembly runner, pasted into modules nnl-emit-js --wasm writes.
$(B)/wasmjs.c: common/rt/js/wasm.mjs scripts/embed.sh
	@mkdir -p $(B)
	sh scripts/embed.sh nnl_wasmjs common/rt/js/wasm.mjs > $@

$(B)/wasmjs.o: $(B)/wasmjs.c
	$(CC) -c -o $@ $(B)/wasmjs.c

# Weights chosen at load time, pasted into modules nnl-emit-js
# --weights-at-load writes.
$(B)/weightsjs.c: common/rt/js/weights.mjs scripts/embed.sh
	@mkdir -p $(B)
	sh scripts/embed.sh nnl_weightsjs common/rt/js/weights.mjs > $@

$(B)/weightsjs.o: $(B)/weightsjs.c
	$(CC) -c -o $@ $(B)/weightsjs.c

$(BIN)/nnl-emit-js: $(B)/passes/emit-js.o $(B)/xxh3js.o $(B)/wasmjs.o \
    $(B)/weightsjs.o $(B)/libnnl.a $(SANOBJ)
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) -o $@ $(B)/passes/emit-js.o $(B)/xxh3js.o \
	    $(B)/wasmjs.o $(B)/weightsjs.o $(B)/libnnl.a $(SANOBJ) $(LDLIBS)

$(BIN)/nnl-emit-c: $(B)/passes/emit-c.o $(B)/rtsrc.o $(B)/libnnl.a $(SANOBJ)
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) -o $@ $(B)/passes/emit-c.o $(B)/rtsrc.o \
	    $(B)/libnnl.a $(SANOBJ) $(LDLIBS)

# nnl-infer is nnl-shape-infer by another name.
$(BIN)/nnl-infer: $(BIN)/nnl-shape-infer
	ln -sf nnl-shape-infer $@

# PIC: tests/run-asan.sh links it into shared libraries nnc builds too
$(B)/ubsan_log.o: tests/harness/ubsan_log.c
	@mkdir -p $(B)
	$(CC) $(CFLAGS) -fPIC -c -o $@ tests/harness/ubsan_log.c

$(B)/tests/%: tests/unit/%.c $(B)/libnnl.a tests/unit/check.h $(SANOBJ)
	@mkdir -p $(B)/tests
	$(CC) $(CFLAGS) $(DEPCFLAGS) $(INC) -Itests/unit -o $@ $< \
	    $(B)/libnnl.a $(SANOBJ) $(LDLIBS)

# The thread pool as generated code holds it: the runtime pasted in,
# POSIX threads.
$(B)/tests/test_par: tests/unit/test_par.c $(B)/libnnl.a \
    tests/unit/check.h common/rt/rt.h $(RT:%=common/rt/%.c) \
    $(RTPAR:%=common/rt/%) \
    $(SANOBJ)
	@mkdir -p $(B)/tests
	$(CC) $(CFLAGS) -pthread $(INC) $(RTINC) -Itests/unit -o $@ \
	    tests/unit/test_par.c $(SANOBJ) -lm

check: all $(TESTBINS)
	@sh tests/run-all.sh $(TESTBINS)
	@$(MAKE) -s check-layers
	@$(MAKE) -s check-harness

# The library's layering (common/LAYERS): every include and every call
# between the objects of $(B) against the rules, and no circle of more
# than five files (scripts/check-layers.py; tests/cli/layers.bats
# shows it failing).
check-layers: all
	@/usr/bin/python3 scripts/check-layers.py --root common --build $(B)

# The checks of the checks (tests/harness): a runner that dies, and a
# sanitizer report planted in a copy of a pass (built against the
# sanitizer library alone), each fail the run that meets them.
check-harness: all
	@$(MAKE) -s $(SANVARS) $(ASAN)/libnnl.a $(ASAN)/ubsan_log.o
	@sh tests/harness/dead-runner.sh
	@CC="$(CC)" SANFLAGS="$(SANFLAGS)" LDLIBS="$(LDLIBS)" \
	    sh tests/harness/planted-sanitizer.sh $(ASAN)

# The op cases against faults planted in the kernels one at a time
# (tests/ops/mutate.py): every fault must fail a case.  make check runs
# it too, through tests/cli/mutants.bats.
check-mutants: all
	@/usr/bin/python3 tests/ops/mutate.py

# The ONNX backend node tests (Debian's libonnx-testdata) through the C
# back end.  The expected list, tests/onnx/conformance.txt, is under
# version control and only read: the run writes its report to
# $(B)/conformance.txt, and fails if a test the list names as PASS does
# not pass now, or if any nnl program crashed or hung.  After a change
# that makes more tests pass (or, deliberately, fewer), read the diff
# and record the report with make conformance-accept.
conformance: all
	@mkdir -p $(B)
	@/usr/bin/python3 tests/onnx/conformance.py \
	    --expect tests/onnx/conformance.txt --report $(B)/conformance.txt

# The same tests through nnl-emit-js: each module builds its graph
# against a WebIDL-derived MLGraphBuilder in node (tests/js), and the
# graph it built runs through the C back end.  Expected list
# tests/onnx/conformance-js.txt, report $(B)/conformance-js.txt.
conformance-js: all
	@mkdir -p $(B)
	@/usr/bin/python3 tests/onnx/conformance.py --js \
	    --expect tests/onnx/conformance-js.txt \
	    --report $(B)/conformance-js.txt

# Record the last report of each as its expected list.
conformance-accept:
	cp $(B)/conformance.txt tests/onnx/conformance.txt
conformance-js-accept:
	cp $(B)/conformance-js.txt tests/onnx/conformance-js.txt

# The sanitizer build: every program and unit test built again with
# AddressSanitizer and UndefinedBehaviorSanitizer into build/asan, the
# programs into build/asan/bin, where nnc finds the passes it runs.
ASAN    = build/asan
# (float-cast-overflow by name: GCC's "undefined" leaves it out, and a
# double from a graph cast to an integer out of range is undefined too)
SANFLAGS = -fsanitize=address,undefined,float-cast-overflow \
           -fno-sanitize-recover=undefined,float-cast-overflow \
           -fno-omit-frame-pointer
SANVARS = B=$(ASAN) BIN=$(ASAN)/bin OPT=-O1 SAN="$(SANFLAGS)" \
          SANOBJ=$(ASAN)/ubsan_log.o
asan:
	@$(MAKE) -s $(SANVARS) all $(COMMON_TESTS:%=$(ASAN)/tests/%)
	@ln -sfn ../../templates $(ASAN)/templates  # nnc new's, beside bin/

# The unit, golden and command-line tests against the sanitizer build;
# any sanitizer report fails the run (see tests/run-asan.sh).
check-asan: asan
	@sh tests/run-asan.sh $(ASAN) $(COMMON_TESTS:%=$(ASAN)/tests/%)

# Benchmarks: measurements, not pass/fail tests (shared machines are
# noisy); see bench/.  bench/compile.sh times nnc compile of resnet18;
# bench-ort times the generated code against ONNX Runtime (installed
# from npm into build/bench) on eleven models (bench/models.py: CNNs, a
# ViT and a BERT-style encoder of two int64 inputs), each net of its
# runtime's fixed cost, with the method in its header, and checks
# nnl's outputs against PyTorch's (bench/ort.py); BENCH_MODELS="a b"
# in the environment runs those alone.
bench: all
	@sh bench/compile.sh
	@/usr/bin/python3 bench/ort.py
	@/usr/bin/python3 bench/passes.py

bench-ort: all
	@/usr/bin/python3 bench/ort.py

# resnet18's WebAssembly build in node against its native build
# (bench/wasm.sh): check-wasm-resnet18 the outputs, bench-wasm the
# outputs and the speed ratio.
check-wasm-resnet18: all
	@sh bench/wasm.sh 0

bench-wasm: all
	@sh bench/wasm.sh 20

# Where each benchmark model's time goes, node by node (bench/layers.py;
# after make bench has exported the models).
bench-layers: all
	@/usr/bin/python3 bench/layers.py

# How each program's time grows with the graph (bench/passes.py).
bench-passes: all
	@/usr/bin/python3 bench/passes.py

# Every source must also be warning-free under clang.  The thread pool
# (rt/par, RTPAR) is only ever pasted after the rest of the runtime, with
# NNL_RT_THREADS set: it is checked so, as generated code has it.
check-clang: $(B)/onnx/onnx.pb-c.c
	@for f in $(COMMON:%=common/%.c) $(ONNX:%=common/onnx/%.c) \
	    $(RT:%=common/rt/%.c) passes/*.c tests/unit/*.c; do \
	    clang $(CFLAGS) -DNNL_RT= $(DEPCFLAGS) $(INC) $(RTINC) \
	        -I$(B)/onnx -Itests/unit \
	        -fsyntax-only $$f || exit 1; done
	@{ echo '#define NNL_RT_THREADS 2'; \
	    for f in $(RT:%=%.c) $(filter %.c,$(RTPAR)); do \
	        echo "#include \"rt/$$f\""; done; } | \
	    clang $(CFLAGS) -DNNL_RT= -Icommon $(RTINC) -fsyntax-only \
	        -x c - || exit 1; echo "clang: clean"

# Regenerate golden outputs after an intended change; review the diff.
golden: all
	@sh tests/run-golden.sh --update

lint-man:
	mandoc -T lint -W warning man/man1/*.1 man/man5/*.5 man/man7/*.7

# make install: programs in bin, pages in share/man, the rest under
# share/nnl (nnc finds pipelines/c.passes there, beside its bin); make
# uninstall removes exactly those files.
DATADIR = $(PREFIX)/share/nnl
MANDIR  = $(PREFIX)/share/man
INSTDATA = $(wildcard schema/*.json) js/cpuops.mjs \
          $(patsubst pipelines/%,%,$(wildcard pipelines/profiles/*.json)) \
          pipelines/nnl.mk pipelines/c.passes pipelines/compile.sh
INSTMAN = $(wildcard man/man1/*.1 man/man5/*.5 man/man7/*.7)
# Every path reaches sh single-quoted, its own quotes as '\'' (q);
# a DESTDIR or PREFIX holding a line end, or a '$' that make would
# expand as a variable of its own, is refused (instpaths).
q = '$(subst ','\'',$(1))'
define nl


endef
instpaths = $(if $(findstring $$,$(value DESTDIR)$(value PREFIX)),$(error \
    DESTDIR and PREFIX must not hold a '$$': make would read it as a\
    variable))$(if $(findstring $(nl),$(DESTDIR)$(PREFIX)),$(error \
    DESTDIR and PREFIX must not hold a line end))
IBIN = $(call q,$(DESTDIR)$(PREFIX)/bin)
IMAN = $(call q,$(DESTDIR)$(MANDIR))
IDATA = $(call q,$(DESTDIR)$(DATADIR))
install: all
	$(instpaths)mkdir -p $(IBIN) $(IMAN)/man1 $(IMAN)/man5 $(IMAN)/man7 \
	    $(IDATA)/schema $(IDATA)/js $(IDATA)/profiles $(IDATA)/pipelines
	cp $(foreach f,$(BINS),$(call q,$(f))) $(IBIN)/
	ln -sf nnl-shape-infer $(IBIN)/nnl-infer
	cp man/man1/*.1 $(IMAN)/man1/
	cp man/man5/*.5 $(IMAN)/man5/
	cp man/man7/*.7 $(IMAN)/man7/
	cp schema/*.json $(IDATA)/schema/
	cp common/rt/js/cpuops.mjs $(IDATA)/js/
	cp pipelines/profiles/*.json $(IDATA)/profiles/
	cp pipelines/nnl.mk pipelines/c.passes pipelines/compile.sh \
	    $(IDATA)/pipelines/
	mkdir -p $(IDATA)/templates
	cp -R templates/new $(IDATA)/templates/

uninstall:
	$(instpaths)rm -f $(foreach f,$(BINS:$(BIN)/%=%) nnl-infer,$(IBIN)/$(f))
	rm -f $(foreach f,$(INSTMAN:man/%=%),$(call q,$(DESTDIR)$(MANDIR)/$(f)))
	rm -f $(foreach f,$(INSTDATA),$(call q,$(DESTDIR)$(DATADIR)/$(f)))
	rm -rf $(IDATA)/templates/new
	rmdir $(IDATA)/templates 2>/dev/null || true
	for d in schema js profiles pipelines; do \
	    rmdir $(IDATA)/"$$d" 2>/dev/null || true; done
	rmdir $(IDATA) 2>/dev/null || true

clean:
	rm -rf build bin

.PHONY: all examples asan bench bench-ort bench-layers bench-passes check check-asan check-clang \
    check-layers check-mutants \
    check-wasm-resnet18 bench-wasm check-harness \
    conformance conformance-js conformance-accept \
    conformance-js-accept golden lint-man install uninstall clean
.PRECIOUS: $(B)/passes/%.o $(B)/common/%.o
