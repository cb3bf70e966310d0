# nnl: one build for the library, the passes, the tests and the pages.
#   make            build every executable into bin/
#   make check      unit, golden, schema and command-line tests
#   make install    PREFIX=/usr/local (DESTDIR honoured)
.POSIX:
.SUFFIXES:

CC      = cc
PREFIX  = /usr/local
WARN    = -Wall -Wextra -Werror -Wno-unused-parameter -Wshadow -Wvla
CFLAGS  = -std=c11 -O2 -g $(WARN)
DEPCFLAGS = $$(pkg-config --cflags libcjson libzip 2>/dev/null)
LDLIBS  = $$(pkg-config --libs libcjson libzip 2>/dev/null || echo -lcjson -lzip) -lxxhash -lz -lm
# The ONNX importer's protobuf code, generated from Debian's onnx.proto.
ONNXPROTO = /usr/include/onnx/onnx.proto
ONNX    = onnx_read onnx_import onnx_names onnx_ew onnx_loss onnx_tensor \
          onnx_nn onnx_rnn onnx_resize
ONNXOBJ = build/onnx/onnx.pb-c.o $(ONNX:%=build/onnx/%.o)

# One executable per pass: passes/NAME.c -> bin/nnl-NAME.
PASSES  = parse pack-weights reorder shape-infer fuse plan-memory \
          emit-c emit-js run onnx-import cpu-partition
# Modules of the shared library, each common/NAME.c.
COMMON  = util outfile dtype ops graph json jsonerr validate webnn_read \
          webnn_write checked order memplan memplan_verify constdata pipeline \
          shape shape_ew shape_nn shape_tensor \
          kernel kern_ew kern_nn kern_rnn kern_tensor eval fuse escape emitc \
          emitjs partition \
          nnl_read nnl_model nnl_lower nnl_write \
          npy npz weights strtab infile uses
UNIT    = $(COMMON_TESTS)
COMMON_TESTS = test_dtype test_json test_webnn test_npy test_weights \
          test_memplan test_escape test_checked test_gemm \
          test_strtab test_uses test_dwconv test_pool

# Runtime kernels (common/rt/NAME.c): in libnnl, and pasted into
# generated code, where they are static.  libnnl holds every SGEMM
# microkernel of the platform and picks one at run time (rt.h).
RT      = gemm_f32_4x8_scalar gemm_f32_6x16_avx2 gemm_f32_14x32_avx512 \
          gemm_f32_8x8_neon gemm dwconv ew nn rnn tensor
LIBOBJ  = $(COMMON:%=build/common/%.o) $(RT:%=build/common/rt/%.o)
BINS    = $(PASSES:%=bin/nnl-%) bin/nnc
TESTBINS = $(COMMON_TESTS:%=build/tests/%)
HDRS    = $(wildcard common/*.h) common/ops.def common/rt/rt.h \
          common/rt/kernels.def

all: $(BINS) bin/nnl-infer

build/common/%.o: common/%.c $(HDRS)
	@mkdir -p build/common
	$(CC) $(CFLAGS) $(DEPCFLAGS) -Icommon -c -o $@ $<

build/common/rt/%.o: common/rt/%.c common/rt/rt.h
	@mkdir -p build/common/rt
	$(CC) $(CFLAGS) -DNNL_RT= -DNNL_RT_DISPATCH -Icommon -c -o $@ $<

build/libnnl.a: $(LIBOBJ)
	rm -f $@
	ar rcs $@ $(LIBOBJ)

build/passes/%.o: passes/%.c $(HDRS)
	@mkdir -p build/passes
	$(CC) $(CFLAGS) $(DEPCFLAGS) -Icommon -c -o $@ $<

bin/nnl-%: build/passes/%.o build/libnnl.a
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $< build/libnnl.a $(LDLIBS)

bin/nnc: build/passes/nnc.o build/libnnl.a
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ build/passes/nnc.o build/libnnl.a $(LDLIBS)

build/onnx/onnx.pb-c.c: $(ONNXPROTO)
	@mkdir -p build/onnx
	cp $(ONNXPROTO) build/onnx/onnx.proto
	cd build/onnx && protoc-c --c_out=. onnx.proto

build/onnx/onnx.pb-c.o: build/onnx/onnx.pb-c.c
	$(CC) -std=c11 -O2 -g -Ibuild/onnx -c -o $@ build/onnx/onnx.pb-c.c

build/onnx/%.o: common/%.c $(HDRS) common/onnx_ops.def common/onnx_arity.h build/onnx/onnx.pb-c.c
	$(CC) $(CFLAGS) $(DEPCFLAGS) -Icommon -Ibuild/onnx -c -o $@ $<

build/passes/onnx-import.o: passes/onnx-import.c $(HDRS)
	@mkdir -p build/passes
	$(CC) $(CFLAGS) $(DEPCFLAGS) -Icommon -c -o $@ passes/onnx-import.c

bin/nnl-onnx-import: build/passes/onnx-import.o $(ONNXOBJ) build/libnnl.a
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ build/passes/onnx-import.o $(ONNXOBJ) \
	    build/libnnl.a $(LDLIBS) -lprotobuf-c

# The runtime's sources, embedded in nnl-emit-c for generated code.
build/rtsrc.c: common/rt/rt.h $(RT:%=common/rt/%.c) scripts/embed.sh
	@mkdir -p build
	sh scripts/embed.sh nnl_rtsrc common/rt/rt.h \
	    $(RT:%=common/rt/%.c) > $@

build/rtsrc.o: build/rtsrc.c
	$(CC) -c -o $@ build/rtsrc.c

# XXH3 in JavaScript, pasted into every module nnl-emit-js writes.
build/xxh3js.c: common/rt/xxh3.mjs scripts/embed.sh
	@mkdir -p build
	sh scripts/embed.sh nnl_xxh3js common/rt/xxh3.mjs > $@

build/xxh3js.o: build/xxh3js.c
	$(CC) -c -o $@ build/xxh3js.c

bin/nnl-emit-js: build/passes/emit-js.o build/xxh3js.o build/libnnl.a
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ build/passes/emit-js.o build/xxh3js.o \
	    build/libnnl.a $(LDLIBS)

bin/nnl-emit-c: build/passes/emit-c.o build/rtsrc.o build/libnnl.a
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ build/passes/emit-c.o build/rtsrc.o \
	    build/libnnl.a $(LDLIBS)

# nnl-infer is nnl-shape-infer by another name.
bin/nnl-infer: bin/nnl-shape-infer
	ln -sf nnl-shape-infer $@

build/tests/%: tests/unit/%.c build/libnnl.a tests/unit/check.h
	@mkdir -p build/tests
	$(CC) $(CFLAGS) $(DEPCFLAGS) -Icommon -Itests/unit -o $@ $< \
	    build/libnnl.a $(LDLIBS)

check: all $(TESTBINS)
	@sh tests/run-all.sh $(TESTBINS)

# The ONNX backend node tests (Debian's libonnx-testdata) through the C
# back end; rewrites the committed report, and fails if a test it listed
# as passing fails now, or if any nnl program crashed or hung.
conformance: all
	@/usr/bin/python3 tests/onnx/conformance.py \
	    --expect tests/onnx/conformance.txt --report tests/onnx/conformance.txt

# The same tests through nnl-emit-js: each module builds its graph
# against a WebIDL-derived MLGraphBuilder in node (tests/js), and the
# graph it built runs through the C back end.
conformance-js: all
	@/usr/bin/python3 tests/onnx/conformance.py --js \
	    --expect tests/onnx/conformance-js.txt \
	    --report tests/onnx/conformance-js.txt

# Benchmarks: measurements, not pass/fail tests (shared machines are
# noisy); see bench/.  bench-ort times the generated code against ONNX
# Runtime (installed from npm into build/bench) on four models.
bench: all
	@sh bench/compile.sh
	@/usr/bin/python3 bench/ort.py
	@/usr/bin/python3 bench/passes.py

bench-ort: all
	@/usr/bin/python3 bench/ort.py

# How each program's time grows with the graph (bench/passes.py).
bench-passes: all
	@/usr/bin/python3 bench/passes.py

# Every source must also be warning-free under clang.
check-clang: build/onnx/onnx.pb-c.c
	@for f in common/*.c common/rt/*.c passes/*.c tests/unit/*.c; do \
	    clang $(CFLAGS) -DNNL_RT= $(DEPCFLAGS) -Icommon -Ibuild/onnx \
	        -Itests/unit \
	        -fsyntax-only $$f || exit 1; done; echo "clang: clean"

# Regenerate golden outputs after an intended change; review the diff.
golden: all
	@sh tests/run-golden.sh --update

lint-man:
	mandoc -T lint -W warning man/man1/*.1 man/man5/*.5 man/man7/*.7

install: all
	mkdir -p $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/man/man5 \
	    $(DESTDIR)$(PREFIX)/share/man/man7 \
	    $(DESTDIR)$(PREFIX)/share/nnl/schema \
	    $(DESTDIR)$(PREFIX)/share/nnl/js $(DESTDIR)$(PREFIX)/share/nnl/profiles
	cp $(BINS) $(DESTDIR)$(PREFIX)/bin/
	ln -sf nnl-shape-infer $(DESTDIR)$(PREFIX)/bin/nnl-infer
	cp man/man1/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	cp man/man5/*.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	cp man/man7/*.7 $(DESTDIR)$(PREFIX)/share/man/man7/
	cp schema/*.json $(DESTDIR)$(PREFIX)/share/nnl/schema/
	cp common/rt/cpuops.mjs $(DESTDIR)$(PREFIX)/share/nnl/js/
	cp pipelines/profiles/*.json $(DESTDIR)$(PREFIX)/share/nnl/profiles/

clean:
	rm -rf build bin

.PHONY: all bench bench-ort bench-passes check check-clang conformance conformance-js golden lint-man install clean
.PRECIOUS: build/passes/%.o build/common/%.o
