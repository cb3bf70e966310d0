/*
 * startup: the least a Cortex-M4F needs before C runs, for QEMU's
 * mps2-an386 board (and any Cortex-M4F with the memory map of
 * mps2-an386.ld): the vector table, a reset handler that copies .data
 * from flash to RAM, zeroes .bss and turns the FPU on (CPACR), then
 * main(); its status ends the program through semihosting.  SysTick
 * counts its wraps for main.c's cycle count, and the stack is painted
 * so that stack_used() can tell how deep it went.
 */
#include <stdint.h>

#include "semihost.h"

extern uint32_t _sidata[], _sdata[], _edata[], _sbss[], _ebss[];
extern uint32_t _sstack[], _estack[];
int main(void);

volatile uint32_t systick_wraps;

#define STACK_PAINT 0x5AA5C33Cu

/* Bytes of the stack written since reset: the deepest unpainted word. */
uint32_t
stack_used(void)
{
	uint32_t *p = _sstack;

	while (p < _estack && *p == STACK_PAINT)
		p++;
	return (uint32_t)((char *)_estack - (char *)p);
}

void
reset_handler(void)
{
	uint32_t *s = _sidata, *d = _sdata;

	while (d < _edata)
		*d++ = *s++;
	for (d = _sbss; d < _ebss; d++)
		*d = 0;
	/* paint the stack below this function's frame */
	for (d = _sstack; d < (uint32_t *)__builtin_frame_address(0) - 16;
	    d++)
		*d = STACK_PAINT;
	/* CPACR: full access to coprocessors 10 and 11, the FPU */
	*(volatile uint32_t *)0xE000ED88 |= 0xFu << 20;
	__asm__ volatile("dsb\n\tisb" ::: "memory");
	semihost_exit(main());
}

/* A fault stops the program with a message, not a hang. */
static void
fault_handler(void)
{
	semihost_puts("cortex-m4: fault\n");
	semihost_exit(1);
}

static void
systick_handler(void)
{
	systick_wraps++;
}

/* Initial stack pointer, then the handlers of exceptions 1 to 15. */
__attribute__((section(".vectors"), used))
static void (*const vectors[16])(void) = {
	(void (*)(void))_estack,
	reset_handler,
	fault_handler,	/* NMI */
	fault_handler,	/* HardFault */
	fault_handler,	/* MemManage */
	fault_handler,	/* BusFault */
	fault_handler,	/* UsageFault */
	0, 0, 0, 0,
	fault_handler,	/* SVCall */
	fault_handler,	/* DebugMonitor */
	0,
	fault_handler,	/* PendSV */
	systick_handler,
};
