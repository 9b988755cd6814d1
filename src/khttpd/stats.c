// SPDX-License-Identifier: GPL-2.0
#include "stats.h"

#include <linux/proc_fs.h>
#include <linux/seq_file.h>

#define STATS_FILE "khttpd"

struct khttpd_stats khttpd_stats;

static int khttpd_stats_show(struct seq_file *m, void *v)
{
	seq_printf(m, "fills %ld\n", atomic_long_read(&khttpd_stats.fills));
	seq_printf(m, "fill_waits %ld\n",
		   atomic_long_read(&khttpd_stats.fill_waits));
	seq_printf(m, "compressions %ld\n",
		   atomic_long_read(&khttpd_stats.compressions));
	seq_printf(m, "streams %ld\n", atomic_long_read(&khttpd_stats.streams));
	seq_printf(m, "page_bytes %ld\n",
		   atomic_long_read(&khttpd_stats.page_bytes));
	seq_printf(m, "read_bytes %ld\n",
		   atomic_long_read(&khttpd_stats.read_bytes));
	seq_printf(m, "accepted %ld\n",
		   atomic_long_read(&khttpd_stats.accepted));
	seq_printf(m, "refused %ld\n", atomic_long_read(&khttpd_stats.refused));
	seq_printf(m, "lingers %ld\n", atomic_long_read(&khttpd_stats.lingers));
	seq_printf(m, "held_bytes %ld\n",
		   atomic_long_read(&khttpd_stats.held_bytes));
	seq_printf(m, "held_refused %ld\n",
		   atomic_long_read(&khttpd_stats.held_refused));
	return 0;
}

int khttpd_stats_init(void)
{
	if (!proc_create_single(STATS_FILE, 0444, NULL, khttpd_stats_show))
		return -ENOMEM;
	return 0;
}

void khttpd_stats_exit(void)
{
	remove_proc_entry(STATS_FILE, NULL);
}
