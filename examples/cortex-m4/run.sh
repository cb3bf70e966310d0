#!/bin/sh
# run.sh: compiles MODEL for the Cortex-M4F with nnc (--emit lib), links
# it with this directory's startup, semihosting and main into a firmware
# for QEMU's mps2-an386 board with INPUT (.npy) inside, prints the
# firmware's section sizes, and runs it under qemu-system-arm, which
# writes the model's raw output to DIR/output.bin.
#   sh run.sh MODEL INPUT.npy DIR
# NNC names the nnc to use (default: this checkout's, else nnc on
# PATH), NNC_FLAGS more of its options (--cflag -Os); QEMU_ICOUNT=0
# runs with -icount shift=0 (one instruction a nanosecond: reproducible).
set -eu
[ $# -eq 3 ] || { echo "usage: run.sh model input.npy dir" >&2; exit 2; }
here=$(cd -- "$(dirname -- "$0")" && pwd)
model=$1 input=$2 dir=$3
# the names reach C strings (-DMODEL_H, -DINPUT_FILE), where a quote,
# a backslash or a line end cannot go; no path is read as an option or
# a response file (nnc(1) SECURITY)
plain() {
	case $2 in
	*'"'* | *'\'* | *'
'*)
		echo "run.sh: $1: a name with '\"', '\\' or a line end" >&2
		exit 1 ;;
	esac
}
plain model "$model"
plain input "$input"
plain dir "$dir"
case $model in -* | @*) model=./$model ;; esac
case $input in -* | @*) input=./$input ;; esac
case $dir in -* | @*) dir=./$dir ;; esac
# the nnc of this checkout when it is built, else the one on PATH
if [ -z "${NNC:-}" ] && [ -x "$here/../../bin/nnc" ]; then
	NNC=$here/../../bin/nnc
fi
nnc=${NNC:-nnc}
flags="-O2 -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16"
flags="$flags --specs=nano.specs -ffunction-sections -fdata-sections"
mkdir -p "$dir"
stem=$(basename "$model"); stem=${stem%.*}
# the library and the header nnc names after the model's API, alone in
# a folder of their own
lib=$dir/model
rm -rf -- "$lib"
mkdir -- "$lib"
"$nnc" compile --emit lib --target-triple thumbv7em-none-eabi \
    ${NNC_FLAGS:-} -o "$lib/lib$stem.a" "$model"
set -- "$lib"/*.h
[ $# -eq 1 ] && [ -f "$1" ] || { echo "run.sh: no header in $lib" >&2; exit 1; }
hdr=$1
# the API's prefix, from that header
api=$(sed -n 's/^int \([A-Za-z_][A-Za-z0-9_]*\)_infer(.*/\1/p' "$hdr")
[ -n "$api" ] || { echo "run.sh: no _infer in $hdr" >&2; exit 1; }
# the output buffer: the bytes of all outputs, from the same header
outmax=$(sed -n 's/.*Bytes of all inputs ([0-9]*) and of all outputs (\([0-9]*\)).*/\1/p' "$hdr")
/usr/bin/python3 -c 'import sys, numpy as np
np.ascontiguousarray(np.load(sys.argv[1])).tofile(sys.argv[2])' \
    "$input" "$dir/input.bin"
arm-none-eabi-gcc $flags -nostartfiles -T "$here/mps2-an386.ld" \
    -Wl,--gc-sections -I"$here" -I"$lib" -DMODEL="$api" \
    -DMODEL_H="\"${hdr##*/}\"" -DINPUT_FILE="\"$dir/input.bin\"" \
    ${outmax:+-DOUTPUT_MAX=$outmax} \
    -o "$dir/firmware.elf" "$here/startup.c" "$here/semihost.c" \
    "$here/main.c" "$here/input.S" "$lib/lib$stem.a" -lm
arm-none-eabi-size -A "$dir/firmware.elf" | awk '
    { s[$1] = $2 }
    END { printf "flash: %d bytes (text %d + rodata %d + data %d)\n",
	    s[".text"] + s[".rodata"] + s[".data"], s[".text"], s[".rodata"],
	    s[".data"]
	printf "ram: %d bytes (data %d + bss %d + stack %d)\n",
	    s[".data"] + s[".bss"] + s[".stack"], s[".data"], s[".bss"],
	    s[".stack"] }'
rm -f "$dir/output.bin"
cd "$dir"
# the board's SysTick runs at its 25 MHz system clock in virtual time;
# under -icount shift=N an instruction takes 2^N ns of it
timeout 120 qemu-system-arm -M mps2-an386 -nographic -monitor none \
    -serial none -semihosting-config enable=on,target=native \
    ${QEMU_ICOUNT:+-icount shift=$QEMU_ICOUNT} -kernel firmware.elf \
    2> qemu.err || { cat qemu.err >&2; exit 1; }
cat qemu.err >&2
ticks=$(sed -n 's/.*systick ticks per inference: \([0-9]*\).*/\1/p' qemu.err)
if [ -n "${QEMU_ICOUNT:-}" ] && [ -n "$ticks" ]; then
	echo "emulated: $((ticks * 40 / (1 << QEMU_ICOUNT))) instructions" \
	    "per inference (qemu -icount shift=$QEMU_ICOUNT, 40 ns a tick)"
fi
