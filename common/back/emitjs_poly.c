/*
 * emitjs_poly: the polyfill half of nnl-emit-js --polyfill, as
 * OnnxConverter's users know it: InstallCpuOps(builder) gives an
 * MLGraphBuilder a cpu_OP method for each CpuOps function (the nodes
 * nnl-cpu-partition placed on the CPU, computed in JavaScript while the
 * graph is built), and wraps its methods so that they also take those
 * CPU values, and JS numbers, as operands (made constants of the graph;
 * with no MLOperand among the operands, the op is computed on the CPU).
 */
#include "emitjs.h"
#include "ops.h"

static const char install[] =
"\n// ---- polyfill: nnl-cpu-partition's CPU nodes, computed while the\n"
"// graph is built (OnnxConverter's CpuOps) ----\n"
"import { CpuOps, tensor as cpuTensor } from \"./cpuops.mjs\";\n"
"\n"
"const isCpuValue = (v) => v !== null && typeof v === \"object\" &&\n"
"  !Array.isArray(v) && \"data\" in v && \"dataType\" in v && \"shape\" in v;\n"
"const isCpuArg = (v) => isCpuValue(v) || typeof v === \"number\" ||\n"
"  typeof v === \"bigint\";\n"
"\n"
"// A number as a tensor of the data type of the op's other operands.\n"
"function cpuValue(v, dataType) {\n"
"  if (isCpuValue(v)) return v;\n"
"  return cpuTensor(dataType, [], [v]);\n"
"}\n"
"\n"
"// Install the CPU ops on builder (once): builder.cpu_add(...) and the\n"
"// others compute with CpuOps; builder.add(...) and the others take CPU\n"
"// values and numbers where they take operands.\n"
"export function InstallCpuOps(builder) {\n"
"  if (builder.__nnlCpuOps) return builder;\n"
"  Object.defineProperty(builder, \"__nnlCpuOps\", {value: true});\n"
"  for (const name of Object.keys(CpuOps))\n"
"    builder[\"cpu_\" + name] = (...args) => CpuOps[name](...args);\n"
"  for (const [name, [n, params]] of Object.entries(OPERANDS)) {\n"
"    const original = builder[name];\n"
"    if (typeof original !== \"function\") continue;\n"
"    builder[name] = function (...args) {\n"
"      const k = n < 0 ? 1 : n;\n"
"      const ops = n < 0 ? args[0] : args.slice(0, k);\n"
"      const typed = ops.find(isCpuValue);\n"
"      const dataType = typed ? typed.dataType : \"float32\";\n"
"      if (ops.length && ops.every(isCpuArg) && CpuOps[name]) {\n"
"        // CpuOps take the positional parameters in the options, by name\n"
"        const vs = ops.map((v) => cpuValue(v, dataType));\n"
"        const opts = {...(args[k + params.length] ?? {})};\n"
"        params.forEach((p, i) => { opts[p] = args[k + i]; });\n"
"        return n < 0 ? CpuOps[name](vs, opts) : CpuOps[name](...vs, opts);\n"
"      }\n"
"      const toOperand = (v) => {\n"
"        if (!isCpuArg(v)) return v;\n"
"        const t = cpuValue(v, typed ? dataType : (ops.find((o) => !isCpuArg(o)) || {}).dataType || dataType);\n"
"        return builder.constant({dataType: t.dataType, shape: t.shape}, t.data);\n"
"      };\n"
"      const conv = n < 0 ? [args[0].map(toOperand), ...args.slice(1)] :\n"
"        [...args.slice(0, k).map(toOperand), ...args.slice(k)];\n"
"      return original.apply(this, conv);\n"
"    };\n"
"  }\n"
"  return builder;\n"
"}\n";

void
emitjs_polyfill(struct buf *b)
{
	buf_puts(b, "\n// The operands each builder method takes (-1: a sequence), "
	    "and its\n// positional parameters.\n"
	    "const OPERANDS = {__proto__: null");
	for (int i = 0; i < OP_COUNT; i++) {
		const struct opdesc *d = op_get((enum op)i);

		buf_printf(b, ",\n  %s: [%d, [", d->name,
		    d->variadic ? -1 : d->nOperands);
		for (int k = 0; k < d->nparams; k++)
			buf_printf(b, "%s\"%s\"", k ? ", " : "",
			    d->params[k].name);
		buf_puts(b, "]]");
	}
	buf_puts(b, "};\n");
	buf_puts(b, install);
}
