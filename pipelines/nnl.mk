# nnl.mk: pattern rules that turn models into C, objects, libraries and
# programs, one file per stage so every intermediate graph can be read:
#
#   include pipelines/nnl.mk
#   app: app.o mnist.o          # mnist.o from mnist.nnl, mnist.webnn
#                               # or mnist.json
#
#   MODEL.nnl / .webnn / .json   -> MODEL.parsed.json   nnl-parse
#                                -> MODEL.ordered.json  nnl-reorder
#                                -> MODEL.typed.json    nnl-shape-infer
#                                -> MODEL.planned.json  nnl-fuse -e
#                                   winograd -e panels -e ihwo -e residual
#                                   (new weights MODEL.fused.weights, if
#                                   any),
#                                   nnl-plan-memory
#                                -> MODEL.c MODEL.h     nnl-emit-c
#   MODEL.o, libMODEL.a, libMODEL.so from MODEL.c; the program MODEL
#   (main() reading raw input on stdin) from MODEL.main.c.
#
# Set NNL_BIN to the directory of the nnl programs (empty: $PATH), and
# NNL_PASSES to run other passes between fusion and planning.
# NNL_CFLAGS builds for the host, as nnc does; a cross build sets its
# own (e.g. NNL_CC=aarch64-linux-gnu-gcc NNL_CFLAGS=-O2), and a
# portable one NNL_CFLAGS="-O2 -DNNL_RT_DISPATCH" (nnc --portable).
# The C API is named after the model (its graph's name), as nnc names
# it; NNL_PREFIX names it otherwise (nnc --prefix).

NNL_BIN     ?=
NNL_CC      ?= $(CC)
NNL_CFLAGS  ?= -O2 -march=native
NNL_PASSES  ?=
NNL_PREFIX  ?=

%.parsed.json: %.nnl
	$(NNL_BIN)nnl-parse -w $*.weights -m $*.manifest.json -o $@ $<
%.parsed.json: %.webnn
	$(NNL_BIN)nnl-parse -o $@ $<
%.parsed.json: %.json
	$(NNL_BIN)nnl-parse -o $@ $<
%.ordered.json: %.parsed.json
	$(NNL_BIN)nnl-reorder -o $@ $<
%.typed.json: %.ordered.json
	$(NNL_BIN)nnl-shape-infer -o $@ $<
%.planned.json: %.typed.json
	$(NNL_BIN)nnl-fuse -e winograd -e panels -e ihwo -e residual -w $*.fused.weights -m $*.fused.manifest.json $< $(NNL_PASSES:%=| $(NNL_BIN)%) | $(NNL_BIN)nnl-plan-memory -o $@
%.c %.h: %.planned.json
	$(NNL_BIN)nnl-emit-c $(NNL_PREFIX:%=-p %) -H $*.h -o $*.c $<
%.main.c: %.planned.json
	$(NNL_BIN)nnl-emit-c -m $(NNL_PREFIX:%=-p %) -H $*.h -o $@ $<
%.o: %.c
	$(NNL_CC) $(NNL_CFLAGS) -c -o $@ $<
lib%.a: %.o
	rm -f $@
	$(AR) rcs $@ $<
lib%.so: %.c
	$(NNL_CC) $(NNL_CFLAGS) -shared -fPIC -o $@ $< -lm
%: %.main.c
	$(NNL_CC) $(NNL_CFLAGS) -o $@ $< -lm

.PRECIOUS: %.parsed.json %.ordered.json %.typed.json %.planned.json \
    %.c %.h %.main.c
