// SPDX-License-Identifier: GPL-2.0-only
/*
 * A QEMU TCG plugin that counts the guest instructions each translation
 * block executes, for bench/run.sh's "insn" part.  Every time the guest
 * runs the block at trigger=ADDR (bench/guest-insn.sh makes it the
 * kernel's ksys_sync(): the guest runs sync(1) around what it measures),
 * the counts since the last one are written to out=FILE, one line per
 * block, "ADDR INSNS SIZE" (SIZE: its instructions, so that INSNS / SIZE
 * is how often it ran), after a line "snapshot N", and start again from 0.
 * A block counts whole when it starts (one that an exception cuts short
 * counts the rest too), and the host's load changes nothing: the same
 * code path counts the same, where a time under -icount moves by about
 * 0.5 %.
 *
 * Debian 12's QEMU (7.2) can load plugins but ships no qemu-plugin.h: the
 * few calls used here are declared as that version's API (version 1)
 * defines them, and QEMU checks qemu_plugin_version before it installs
 * the plugin.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct qemu_info_t qemu_info_t;	/* not looked at */

enum { QEMU_PLUGIN_CB_NO_REGS = 0 };
enum { QEMU_PLUGIN_INLINE_ADD_U64 = 0 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
		void (*cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb));
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
		int op, void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
		void (*cb)(unsigned int vcpu_index, void *userdata),
		int flags, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
		void (*cb)(qemu_plugin_id_t id, void *userdata), void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/*
 * One per translation: a block translated again (its code changed, or
 * the cache was flushed) gets another, and the snapshot adds them up by
 * address.  Single-threaded TCG (-accel tcg,thread=single, as vm-run.sh
 * runs it) executes one vCPU at a time, so the plain adds do not race.
 */
struct block {
	uint64_t vaddr;
	uint64_t insns;
	size_t size;
};

static struct block **blocks;
static size_t nr_blocks, max_blocks;
static uint64_t trigger;
static FILE *out;
static unsigned int snapshot;

static void dump(void)
{
	size_t i;

	fprintf(out, "snapshot %u\n", snapshot++);
	for (i = 0; i < nr_blocks; i++) {
		if (blocks[i]->insns)
			fprintf(out, "%" PRIx64 " %" PRIu64 " %zu\n",
				blocks[i]->vaddr, blocks[i]->insns,
				blocks[i]->size);
		blocks[i]->insns = 0;
	}
	fflush(out);
}

static void on_trigger(unsigned int vcpu_index, void *userdata)
{
	dump();
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct block *b = calloc(1, sizeof(*b));

	if (nr_blocks == max_blocks) {
		max_blocks = max_blocks ? 2 * max_blocks : 65536;
		blocks = realloc(blocks, max_blocks * sizeof(*blocks));
	}
	if (!b || !blocks) {
		fprintf(stderr, "tcg_insn: out of memory\n");
		exit(1);
	}
	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->size = qemu_plugin_tb_n_insns(tb);
	blocks[nr_blocks++] = b;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->insns, b->size);
	if (b->vaddr == trigger)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_trigger,
						     QEMU_PLUGIN_CB_NO_REGS, NULL);
}

static void on_qemu_exit(qemu_plugin_id_t id, void *userdata)
{
	dump();
	fclose(out);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			int argc, char **argv)
{
	const char *path = NULL;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "trigger=", 8))
			trigger = strtoull(argv[i] + 8, NULL, 16);
		else if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
	}
	if (!trigger || !path) {
		fprintf(stderr, "tcg_insn: needs trigger=ADDR and out=FILE\n");
		return -1;
	}
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}
