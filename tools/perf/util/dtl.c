// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dispatch Trace Log PMU support.
 *
 * Recording: "perf record -e dtl/all/" maps an AUX buffer for the dtl
 * trace event and saves it as PERF_RECORD_AUXTRACE data, one auxtrace
 * queue per CPU.
 *
 * Decoding: the records of each CPU's queue are turned into samples of a
 * synthesized "dtl" event, merged in time order with the other recorded
 * events through a heap keyed by the time of each queue's next record,
 * as the powerpc vpa-dtl and Intel BTS decoders do.  perf script prints
 * each sample's record (perf_sample__fprintf_synth_dtl()); perf report -D
 * dumps the raw records.  LOST records are printed where they occur and
 * counted per CPU.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "auxtrace.h"
#include "color.h"
#include "debug.h"
#include "dtl.h"
#include "dtl-decoder.h"
#include "evlist.h"
#include "evsel.h"
#include "evsel_config.h"
#include "machine.h"
#include "pmu.h"
#include "pmus.h"
#include "record.h"
#include "sample.h"
#include "session.h"
#include "synthetic-events.h"
#include "thread.h"
#include "tool.h"
#include <internal/lib.h>

#define MAX_TIMESTAMP (~0ULL)

struct dtl {
	struct auxtrace		auxtrace;
	struct auxtrace_queues	queues;
	struct auxtrace_heap	heap;
	struct perf_session	*session;
	struct machine		*machine;
	u32			pmu_type;
	u64			sample_id;
	u64			sample_type;	/* of the synthesized event */
	unsigned int		nr_cpus;	/* of the recording machine, 0: not known */
	/*
	 * PERF_DTL_FORMAT_* that perf asked the kernel for: the records'
	 * until a stream's first header, which names theirs (recordings
	 * made before headers have none).
	 */
	unsigned int		format;
	bool			synth;		/* deliver samples */
	bool			inject;		/* ... as whole events (perf inject) */
	u64			aux_partial;	/* dtl's AUX records flagged PARTIAL */
	bool			data_queued;	/* queued from the index */
};

struct dtl_queue {
	struct dtl		*dtl;
	unsigned int		queue_nr;
	struct auxtrace_buffer	*buffer;
	size_t			pos;		/* next record in @buffer */
	bool			consumed;	/* @buffer is done: go on after it */
	bool			on_heap;
	unsigned int		trailing;	/* buffers with a partial record */
	struct dtl_decoder	dec;
	/* The incoming task of the last record, and that record's CPU, seq */
	struct thread		*last_next;
	u32			last_cpu;
	u64			last_seq;
};

static struct dtl *session_to_dtl(struct perf_session *session)
{
	return container_of(session->auxtrace, struct dtl, auxtrace);
}

/* The comm of @tid, or "-" if the session does not know it. */
static void dtl_comm(struct machine *machine, u32 pid, u32 tid, char *buf,
		     size_t len)
{
	struct thread *thread = NULL;

	if (machine)
		thread = machine__find_thread(machine, pid, tid);
	snprintf(buf, len, "%s", thread ? thread__comm_str(thread) : "-");
	thread__put(thread);
}

/* One record as text: all fields, with task names from @machine. */
static int dtl_fprintf_entry(const struct perf_dtl_entry *e,
			     struct machine *machine, FILE *fp)
{
	char a[32], b[32], line[256];

	dtl_comm(machine, e->prev_pid, e->prev_tid, a, sizeof(a));
	dtl_comm(machine, e->next_pid, e->next_tid, b, sizeof(b));
	dtl_entry_snprintf(line, sizeof(line), e, a, b);
	return fputs(line, fp) < 0 ? 0 : (int)strlen(line);
}

/* A name carried by the sample, if it has one. */
static const char *dtl_synth_comm(const char *comm, size_t len)
{
	return comm[0] && strnlen(comm, len) < len ? comm : NULL;
}

int perf_sample__fprintf_synth_dtl(struct perf_sample *sample,
				   struct machine *machine, FILE *fp)
{
	struct perf_synth_dtl *data = perf_sample__synth_ptr(sample);
	const char *a = NULL, *b = NULL;
	char line[256];
	int len;

	if (sample->raw_size < PERF_SYNTH_DTL_ENTRY_RAW_SIZE)
		return 0;
	if (sample->raw_size < perf_synth__raw_size(*data))
		return fprintf(fp, " ") +
		       dtl_fprintf_entry(&data->entry, machine, fp);

	a = dtl_synth_comm(data->prev_comm, sizeof(data->prev_comm));
	b = dtl_synth_comm(data->next_comm, sizeof(data->next_comm));
	line[0] = ' ';
	len = dtl_entry_snprintf(line + 1, sizeof(line) - 1, &data->entry, a, b);
	len = min(len + 1, (int)sizeof(line) - 1);
	return fwrite(line, 1, len, fp);
}

/* perf report -D */
static void dtl_dump(struct dtl *dtl, const unsigned char *buf, size_t len)
{
	const char *color = PERF_COLOR_BLUE;
	struct dtl_decoder dec;
	struct perf_dtl_entry e;
	size_t pos = 0;
	int ret;

	dtl_decoder_init(&dec, -1, dtl->format);
	dec.nr_cpus = dtl->nr_cpus;
	dec.swap = dtl->session->header.needs_swap;
	printf(".\n");
	color_fprintf(stdout, color,
		      ". ... DTL data: size %zu bytes\n", len);
	while ((ret = dtl_decoder_next(&dec, buf, len, &pos, &e))) {
		if (ret == -1)
			color_fprintf(stdout, PERF_COLOR_RED, ". ... %s\n",
				      dec.err);
		if (ret < 0)
			continue;
		printf(".");
		color_fprintf(stdout, color, "  %08zx: ", pos);
		printf("cpu %u time %llu ", e.cpu, e.time);
		dtl_fprintf_entry(&e, dtl->machine, stdout);
		printf("\n");
		dtl_decoder_consume(&dec, &e, &pos);
	}
	if (pos != len)
		color_fprintf(stdout, PERF_COLOR_RED,
			      ". ... %zu trailing bytes: not a whole record\n",
			      len - pos);
	color_fprintf(stdout, color,
		      ". ... %llu header(s); format %u, %s byte order\n",
		      dec.headers, dec.format,
		      dec.swap ? "the other" : "this machine's");
	if (dec.unknown_format)
		color_fprintf(stdout, PERF_COLOR_RED,
			      ". ... %llu bytes of records in a format this perf does not decode\n",
			      dec.unknown_format);
}

static struct dtl_queue *dtl_alloc_queue(struct dtl *dtl, unsigned int nr)
{
	struct dtl_queue *dq = zalloc(sizeof(*dq));

	if (dq) {
		dq->dtl = dtl;
		dq->queue_nr = nr;
		dtl_decoder_init(&dq->dec, -1, dtl->format);
		dq->dec.nr_cpus = dtl->nr_cpus;
		dq->dec.swap = dtl->session->header.needs_swap;
	}
	return dq;
}

/*
 * The next record of @dq, loading buffers as needed; false when the queue
 * has no more data for now.  Corrupt records are reported and skipped.
 * A queue that ran dry keeps its last buffer, to go on after it when more
 * data comes (in pipe mode the data of a buffer can be read only once).
 */
static bool dtl_queue_peek(struct dtl_queue *dq, struct perf_dtl_entry *e)
{
	struct auxtrace_queue *queue = &dq->dtl->queues.queue_array[dq->queue_nr];
	int fd = perf_data__fd(dq->dtl->session->data);
	int ret;

	while (1) {
		if (!dq->buffer || dq->consumed) {
			struct auxtrace_buffer *next;

			next = auxtrace_buffer__next(queue, dq->buffer);
			if (!next)
				return false;
			dq->buffer = next;
			dq->pos = 0;
			dq->consumed = false;
		}
		if (!dq->buffer->data &&
		    !auxtrace_buffer__get_data(dq->buffer, fd)) {
			pr_err("dtl: cannot read AUX data of cpu %d\n", dq->dec.cpu);
			return false;
		}
		ret = dtl_decoder_next(&dq->dec, dq->buffer->data,
				       dq->buffer->size, &dq->pos, e);
		if (ret > 0)
			return true;
		if (ret == -1 && dq->dec.corrupt <= 5)
			pr_err("dtl: cpu %d: %s (skipped)\n", dq->dec.cpu,
			       dq->dec.err);
		if (ret < 0)
			continue;
		if (dq->pos != dq->buffer->size && !dq->trailing++)
			pr_warning("dtl: cpu %d: AUX data of %zu bytes ends in %zu bytes that are not a whole record\n",
				   dq->dec.cpu, dq->buffer->size,
				   dq->buffer->size - dq->pos);
		auxtrace_buffer__drop_data(dq->buffer);
		dq->consumed = true;
	}
}

/* The process of thread @tid, as the session knows it; -1 if none. */
static pid_t dtl_thread_pid(struct dtl *dtl, pid_t tid)
{
	struct thread *thread;
	pid_t pid = -1;

	if (tid == -1)
		return -1;
	thread = machine__find_thread(dtl->machine, -1, tid);
	if (thread) {
		pid = thread__pid(thread);
		thread__put(thread);
	}
	return pid;
}

/* @src cut to fit @dst (@dst was zeroed). */
static void dtl_copy_comm(char *dst, size_t len, const char *src)
{
	memcpy(dst, src, strnlen(src, len - 1));
}

/*
 * The tasks' names for the sample.  The record after a switch on a CPU
 * names as its outgoing task the one that switch dispatched: the same
 * task, so one thread lookup per record does.
 */
static void dtl_names(struct dtl_queue *dq, const struct perf_dtl_entry *e,
		      struct perf_synth_dtl *raw)
{
	struct machine *machine = dq->dtl->machine;
	struct thread *prev = NULL, *next;

	if (e->kind == PERF_DTL_KIND_LOST)
		return;
	if (dq->last_next && e->cpu == dq->last_cpu &&
	    e->seq == dq->last_seq + 1 &&
	    thread__tid(dq->last_next) == (pid_t)e->prev_tid)
		prev = thread__get(dq->last_next);
	else
		prev = machine__find_thread(machine, e->prev_pid, e->prev_tid);
	if (prev)
		dtl_copy_comm(raw->prev_comm, sizeof(raw->prev_comm),
			      thread__comm_str(prev));
	thread__put(prev);
	if (e->kind == PERF_DTL_KIND_MIGRATE)
		return;

	next = machine__find_thread(machine, e->next_pid, e->next_tid);
	if (next)
		dtl_copy_comm(raw->next_comm, sizeof(raw->next_comm),
			      thread__comm_str(next));
	thread__put(dq->last_next);
	dq->last_next = next;
	dq->last_cpu = e->cpu;
	dq->last_seq = e->seq;
}

static int dtl_deliver(struct dtl_queue *dq, const struct perf_dtl_entry *e)
{
	struct dtl *dtl = dq->dtl;
	const struct auxtrace_queue *queue = &dtl->queues.queue_array[dq->queue_nr];
	union perf_event event;
	struct perf_sample sample = { .ip = 0, };
	struct perf_synth_dtl raw;
	int ret;

	if (!dtl->synth)
		return 0;

	memset(&raw, 0, sizeof(raw));
	raw.entry = *e;
	dtl_names(dq, e, &raw);

	event.sample.header.type = PERF_RECORD_SAMPLE;
	event.sample.header.misc = PERF_RECORD_MISC_KERNEL;
	event.sample.header.size = sizeof(struct perf_event_header);
	/* The scheduler wrote the record, in the kernel. */
	sample.cpumode = PERF_RECORD_MISC_KERNEL;

	/*
	 * The sample belongs to the task that got the CPU, and weighs what
	 * it waited for it: "perf report --sort comm,pid" ranks tasks by
	 * their time waiting for a CPU, "--sort cpu" the CPUs.
	 */
	switch (e->kind) {
	case PERF_DTL_KIND_LOST:
		/*
		 * A per-thread buffer lost the thread's own records; a CPU's
		 * buffer lost those of whichever tasks ran there: no task.
		 */
		sample.tid = queue->tid;
		sample.pid = dtl_thread_pid(dtl, queue->tid);
		break;
	case PERF_DTL_KIND_MIGRATE:
		sample.pid = e->prev_pid;
		sample.tid = e->prev_tid;
		break;
	default:
		sample.pid = e->next_pid;
		sample.tid = e->next_tid;
		sample.period = e->wait_ns;
		break;
	}
	sample.time = e->time;
	sample.cpu = e->cpu;
	sample.id = dtl->sample_id;
	sample.stream_id = dtl->sample_id;
	sample.raw_size = perf_synth__raw_size(raw);
	sample.raw_data = perf_synth__raw_data(&raw);

	/* perf inject --itrace writes the event out: it must be whole. */
	if (dtl->inject) {
		event.sample.header.size =
			perf_event__sample_event_size(&sample, dtl->sample_type,
						      /*read_format=*/0,
						      /*branch_sample_type=*/0);
		ret = perf_event__synthesize_sample(&event, dtl->sample_type,
						    /*read_format=*/0,
						    /*branch_sample_type=*/0,
						    &sample);
		if (ret)
			return ret;
	}

	ret = perf_session__deliver_synth_event(dtl->session, &event, &sample);
	if (ret)
		pr_err("dtl: failed to deliver a sample, error %d\n", ret);
	return ret;
}

static int dtl_queue_consume(struct dtl_queue *dq, const struct perf_dtl_entry *e)
{
	dtl_decoder_consume(&dq->dec, e, &dq->pos);
	return dtl_deliver(dq, e);
}

static int dtl_setup_queues(struct dtl *dtl)
{
	unsigned int i;
	int ret;

	for (i = 0; i < dtl->queues.nr_queues; i++) {
		struct auxtrace_queue *queue = &dtl->queues.queue_array[i];
		struct dtl_queue *dq = queue->priv;
		struct perf_dtl_entry e;

		if (list_empty(&queue->head))
			continue;
		if (!dq) {
			dq = dtl_alloc_queue(dtl, i);
			if (!dq)
				return -ENOMEM;
			dtl_decoder_init(&dq->dec, queue->cpu, dtl->format);
			dq->dec.nr_cpus = dtl->nr_cpus;
			dq->dec.swap = dtl->session->header.needs_swap;
			queue->priv = dq;
		}
		if (dq->on_heap || !dtl_queue_peek(dq, &e))
			continue;
		ret = auxtrace_heap__add(&dtl->heap, i, e.time);
		if (ret)
			return ret;
		dq->on_heap = true;
	}
	return 0;
}

/* Deliver, in time order across CPUs, every record up to @timestamp. */
static int dtl_process_queues(struct dtl *dtl, u64 timestamp)
{
	int ret;

	if (dtl->queues.new_data) {
		dtl->queues.new_data = false;
		ret = dtl_setup_queues(dtl);
		if (ret)
			return ret;
	}

	while (dtl->heap.heap_cnt &&
	       dtl->heap.heap_array[0].ordinal <= timestamp) {
		unsigned int nr = dtl->heap.heap_array[0].queue_nr;
		struct dtl_queue *dq = dtl->queues.queue_array[nr].priv;
		struct perf_dtl_entry e;

		auxtrace_heap__pop(&dtl->heap);
		dq->on_heap = false;
		if (!dtl_queue_peek(dq, &e))
			continue;
		ret = dtl_queue_consume(dq, &e);
		if (ret)
			return ret;
		if (dtl_queue_peek(dq, &e)) {
			ret = auxtrace_heap__add(&dtl->heap, nr, e.time);
			if (ret)
				return ret;
			dq->on_heap = true;
		}
	}
	return 0;
}

static int dtl_process_event(struct perf_session *session,
			     union perf_event *event,
			     struct perf_sample *sample,
			     const struct perf_tool *tool)
{
	struct dtl *dtl = session_to_dtl(session);
	u64 timestamp = 0;

	/* A gap that dtl's own LOST records report (see dtl_flush()). */
	if (event->header.type == PERF_RECORD_AUX &&
	    (event->aux.flags & PERF_AUX_FLAG_PARTIAL)) {
		struct evsel *evsel = evlist__event2evsel(session->evlist, event);

		if (evsel && evsel->core.attr.type == dtl->pmu_type)
			dtl->aux_partial++;
	}
	if (dump_trace)
		return 0;
	if (!tool->ordered_events) {
		pr_err("dtl: decoding needs ordered events\n");
		return -EINVAL;
	}
	if (sample->time && sample->time != (unsigned long long)-1)
		timestamp = sample->time;
	/* Records up to this event's time come first. */
	return dtl_process_queues(dtl, timestamp ? timestamp - 1 : 0);
}

static int dtl_process_auxtrace_event(struct perf_session *session,
				      union perf_event *event,
				      const struct perf_tool *tool __maybe_unused)
{
	struct dtl *dtl = session_to_dtl(session);
	struct auxtrace_buffer *buffer = NULL;
	int fd = perf_data__fd(session->data);
	off_t data_offset;
	int err;

	/* The file's index has queued this data already. */
	if (dtl->data_queued)
		return 0;

	if (perf_data__is_pipe(session->data)) {
		data_offset = 0;
	} else {
		data_offset = lseek(fd, 0, SEEK_CUR);
		if (data_offset == -1)
			return -errno;
	}

	err = auxtrace_queues__add_event(&dtl->queues, session, event,
					 data_offset, &buffer);
	if (err)
		return err;

	/*
	 * Dump now: a piped trace has just been copied out of the pipe.
	 * Data perf skipped (a CPU filtered out, a bad index) has no buffer.
	 */
	if (dump_trace && buffer && auxtrace_buffer__get_data(buffer, fd)) {
		dtl_dump(dtl, buffer->data, buffer->size);
		auxtrace_buffer__put_data(buffer);
	}
	return 0;
}

static int dtl_flush(struct perf_session *session,
		     const struct perf_tool *tool __maybe_unused)
{
	struct dtl *dtl = session_to_dtl(session);
	struct events_stats *stats;
	unsigned int i;
	int ret;

	if (dump_trace)
		return 0;

	ret = dtl_process_queues(dtl, MAX_TIMESTAMP);
	if (ret)
		return ret;

	/*
	 * dtl flags an AUX record PARTIAL where its LOST record says what is
	 * missing, and the decoder reports those counts below: perf's own
	 * warning about gaps in AUX data, which asks about KVM guests, is
	 * not about them.
	 */
	stats = evlist__stats(session->evlist);
	if (dtl->aux_partial && stats->total_aux_partial >= dtl->aux_partial)
		stats->total_aux_partial -= dtl->aux_partial;
	dtl->aux_partial = 0;

	for (i = 0; i < dtl->queues.nr_queues; i++) {
		struct dtl_queue *dq = dtl->queues.queue_array[i].priv;

		if (dq && dq->dec.lost)
			pr_warning("dtl: cpu %d: %llu records lost (%llu decoded)\n",
				   dq->dec.cpu, dq->dec.lost, dq->dec.records);
		if (dq && dq->dec.corrupt)
			pr_warning("dtl: cpu %d: %llu corrupt records skipped\n",
				   dq->dec.cpu, dq->dec.corrupt);
		if (dq && dq->dec.unknown_flags)
			pr_warning("dtl: cpu %d: %llu records have flags this perf does not know (a newer kernel's): ignored\n",
				   dq->dec.cpu, dq->dec.unknown_flags);
		if (dq && dq->dec.unknown_format)
			pr_warning("dtl: cpu %d: %llu bytes of records in format %u, which this perf does not decode (a newer kernel's): skipped\n",
				   dq->dec.cpu, dq->dec.unknown_format,
				   dq->dec.unknown_format_nr);
	}
	return 0;
}

static void dtl_free_events(struct perf_session *session)
{
	struct dtl *dtl = session_to_dtl(session);
	unsigned int i;

	for (i = 0; i < dtl->queues.nr_queues; i++) {
		struct dtl_queue *dq = dtl->queues.queue_array[i].priv;

		if (dq)
			thread__put(dq->last_next);
		zfree(&dtl->queues.queue_array[i].priv);
	}
	auxtrace_queues__free(&dtl->queues);
}

static void dtl_free(struct perf_session *session)
{
	struct dtl *dtl = session_to_dtl(session);

	auxtrace_heap__free(&dtl->heap);
	dtl_free_events(session);
	session->auxtrace = NULL;
	free(dtl);
}

static bool dtl_evsel_is_auxtrace(struct perf_session *session,
				  struct evsel *evsel)
{
	return evsel->core.attr.type == session_to_dtl(session)->pmu_type;
}

static void dtl_set_event_name(struct evlist *evlist, u64 id,
			       const char *name)
{
	struct evsel *evsel;

	evlist__for_each_entry(evlist, evsel) {
		if (evsel->core.id && evsel->core.id[0] == id) {
			free(evsel->name);
			evsel->name = strdup(name);
			break;
		}
	}
}

/* Add the synthesized "dtl" event that the decoded records are samples of. */
static int dtl_synth_events(struct dtl *dtl, struct perf_session *session)
{
	struct perf_event_attr attr;
	struct evsel *evsel, *found = NULL;
	u64 id;
	int err;

	evlist__for_each_entry(session->evlist, evsel) {
		if (evsel->core.attr.type == dtl->pmu_type && evsel->core.ids) {
			found = evsel;
			break;
		}
	}
	if (!found) {
		pr_debug("dtl: no dtl trace event with an id\n");
		return 0;
	}

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SYNTH;
	attr.config = PERF_SYNTH_DTL;
	/*
	 * A record is at no address: no IP, and perf script leaves the
	 * symbol fields out of its default output.
	 */
	attr.sample_type = (found->core.attr.sample_type & PERF_SAMPLE_MASK &
			    ~(u64)(PERF_SAMPLE_IP | PERF_SAMPLE_ADDR)) |
			   PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			   PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			   PERF_SAMPLE_RAW | PERF_SAMPLE_IDENTIFIER;
	attr.sample_period = 1;
	attr.sample_id_all = found->core.attr.sample_id_all;
	attr.exclude_guest = found->core.attr.exclude_guest;

	id = found->core.id[0] + 1000000000;
	if (!id)
		id = 1;
	err = perf_session__deliver_synth_attr_event(session, &attr, id);
	if (err) {
		pr_err("dtl: cannot synthesize the dtl event: %d\n", err);
		return err;
	}
	dtl->sample_id = id;
	dtl->sample_type = attr.sample_type;
	dtl->synth = true;
	dtl_set_event_name(session->evlist, id, "dtl");
	return 0;
}

int dtl_process_auxtrace_info(union perf_event *event,
			      struct perf_session *session)
{
	struct perf_record_auxtrace_info *info = &event->auxtrace_info;
	struct dtl *dtl;
	int err;

	if (info->header.size < sizeof(*info) + DTL_AUXTRACE_PRIV_SIZE)
		return -EINVAL;
	if (!dtl_format_known(info->priv[DTL_FORMAT])) {
		pr_err("dtl: record format %llu is not supported (perf decodes %d and %d)\n",
		       (unsigned long long)info->priv[DTL_FORMAT],
		       PERF_DTL_FORMAT_ENTRY, PERF_DTL_FORMAT_COMPACT);
		return -EINVAL;
	}

	dtl = zalloc(sizeof(*dtl));
	if (!dtl)
		return -ENOMEM;

	err = auxtrace_queues__init(&dtl->queues);
	if (err)
		goto err_free;

	dtl->session = session;
	dtl->machine = &session->machines.host;
	dtl->pmu_type = info->priv[DTL_PMU_TYPE];
	dtl->format = info->priv[DTL_FORMAT];
	dtl->inject = session->itrace_synth_opts &&
		      session->itrace_synth_opts->inject;
	/* Records of CPUs beyond these are not trusted (0: no header). */
	if (session->header.env.nr_cpus_avail > 0)
		dtl->nr_cpus = session->header.env.nr_cpus_avail;

	dtl->auxtrace.process_event = dtl_process_event;
	dtl->auxtrace.process_auxtrace_event = dtl_process_auxtrace_event;
	dtl->auxtrace.flush_events = dtl_flush;
	dtl->auxtrace.free_events = dtl_free_events;
	dtl->auxtrace.free = dtl_free;
	dtl->auxtrace.evsel_is_auxtrace = dtl_evsel_is_auxtrace;
	session->auxtrace = &dtl->auxtrace;

	if (dump_trace) {
		fprintf(stdout, "  PMU Type           %lld\n",
			(long long)info->priv[DTL_PMU_TYPE]);
		fprintf(stdout, "  Format             %lld\n",
			(long long)info->priv[DTL_FORMAT]);
		return 0;
	}

	err = dtl_synth_events(dtl, session);
	if (err)
		goto err_free_queues;

	err = auxtrace_queues__process_index(&dtl->queues, session);
	if (err)
		goto err_free_queues;
	dtl->data_queued = dtl->queues.populated;
	return 0;

err_free_queues:
	auxtrace_queues__free(&dtl->queues);
	session->auxtrace = NULL;
err_free:
	free(dtl);
	return err;
}

/* Recording */

struct dtl_recording {
	struct auxtrace_record	itr;
	struct perf_pmu		*pmu;
	unsigned int		format;		/* the trace event asks for */
};

static size_t dtl_info_priv_size(struct auxtrace_record *itr __maybe_unused,
				 struct evlist *evlist __maybe_unused)
{
	return DTL_AUXTRACE_PRIV_SIZE;
}

static int dtl_info_fill(struct auxtrace_record *itr,
			 struct perf_session *session __maybe_unused,
			 struct perf_record_auxtrace_info *info,
			 size_t priv_size)
{
	struct dtl_recording *dr = container_of(itr, struct dtl_recording, itr);

	if (priv_size != DTL_AUXTRACE_PRIV_SIZE)
		return -EINVAL;
	info->type = PERF_AUXTRACE_DTL;
	info->priv[DTL_PMU_TYPE] = dr->pmu->type;
	info->priv[DTL_FORMAT] = dr->format;
	return 0;
}

/* A poll interval that @how (an option or a term) gave: in range? */
static int dtl_check_poll(const char *how, u64 period)
{
	if (period >= PERF_DTL_POLL_MIN_NS && period <= PERF_DTL_POLL_MAX_NS)
		return 0;
	pr_err("dtl: the sample period is the poll interval in ns: %s%llu is not from %llu (100 us) to %llu (1 s)\n",
	       how, (unsigned long long)period, PERF_DTL_POLL_MIN_NS,
	       PERF_DTL_POLL_MAX_NS);
	return -EINVAL;
}

static int dtl_recording_options(struct auxtrace_record *itr,
				 struct evlist *evlist,
				 struct record_opts *opts)
{
	struct dtl_recording *dr = container_of(itr, struct dtl_recording, itr);
	struct evsel *evsel, *dtl_evsel = NULL;
	struct evsel_config_term *term;

	if (opts->auxtrace_sample_mode) {
		pr_err("dtl: AUX area sampling is not supported\n");
		return -EINVAL;
	}
	if (opts->use_clockid) {
		pr_err("dtl: records are stamped with perf's default clock: -k/--clockid is not supported\n");
		return -EINVAL;
	}

	evlist__for_each_entry(evlist, evsel) {
		if (evsel->core.attr.type != dr->pmu->type)
			continue;
		if ((evsel->core.attr.config & PERF_DTL_CONFIG_EVENT_MASK) !=
		    PERF_DTL_EVENT_TRACE) {
			pr_err("dtl: %s is a counting event: use perf stat, or a trace event such as dtl/all/\n",
			       evsel__name(evsel));
			return -EINVAL;
		}
		/*
		 * A session maps one AUX buffer per CPU or thread, and every
		 * trace event of it would write there.
		 */
		if (dtl_evsel) {
			pr_err("dtl: %s and %s: one dtl trace event per session; its kinds= can select several kinds, and dtl/all/ has them all\n",
			       evsel__name(dtl_evsel), evsel__name(evsel));
			return -EINVAL;
		}
		/*
		 * The AUX buffer is mapped through the first event of the
		 * list, which must be dtl's: it goes to the front below.  A
		 * group's members go with their leader, so a group led by
		 * another event cannot have it.
		 */
		if (!evsel__is_group_leader(evsel)) {
			pr_err("dtl: %s cannot be a member of a group led by %s: its AUX buffer is mapped through the group leader; record it outside the group, or as the leader\n",
			       evsel__name(evsel), evsel__name(evsel__leader(evsel)));
			return -EINVAL;
		}
		dtl_evsel = evsel;
		if (opts->user_freq != UINT_MAX) {
			pr_err("dtl: the sample period is the poll interval in ns: use -c, not -F\n");
			return -EINVAL;
		}
		if (opts->user_interval != ULLONG_MAX &&
		    dtl_check_poll("-c ", opts->user_interval))
			return -EINVAL;
		/*
		 * The event's own terms override -c and -F when perf
		 * configures it, after this: check them as the options.
		 */
		term = evsel__get_config_term(evsel, FREQ);
		if (term && !(term->weak && opts->user_freq != UINT_MAX)) {
			pr_err("dtl: the sample period is the poll interval in ns: use period=, not freq=\n");
			return -EINVAL;
		}
		term = evsel__get_config_term(evsel, PERIOD);
		if (term && !(term->weak && opts->user_interval != ULLONG_MAX) &&
		    dtl_check_poll("period=", term->val.period))
			return -EINVAL;
		/* The poll interval: -c, or the PMU's default. */
		evsel->core.attr.freq = 0;
		if (opts->user_interval == ULLONG_MAX)
			evsel->core.attr.sample_period = PERF_DTL_POLL_DEFAULT_NS;
		/* dtl/full/ asks for the 64-byte records of format 1. */
		if (evsel->core.attr.config & PERF_DTL_CONFIG_FULL)
			dr->format = PERF_DTL_FORMAT_ENTRY;
		evsel->needs_auxtrace_mmap = true;
		evsel__set_sample_bit(evsel, TIME);
		evsel__set_sample_bit(evsel, CPU);
		opts->full_auxtrace = true;
	}

	/*
	 * A record is at no address: a session of dtl events only needs the
	 * tasks' names and threads (COMM, FORK) that perf record synthesizes
	 * at its start, not every task's memory maps, which would be most of
	 * a short recording of a busy machine and most of the time perf
	 * takes to start.  Only by default: --synth says what it says.
	 */
	if (dtl_evsel && opts->synth == PERF_SYNTH_ALL) {
		bool dtl_only = true;

		evlist__for_each_entry(evlist, evsel)
			dtl_only &= evsel->core.attr.type == dr->pmu->type;
		if (dtl_only)
			opts->synth &= ~PERF_SYNTH_MMAP;
	}

	/*
	 * perf maps the AUX area through the first event on each CPU: with
	 * "-e sched:sched_switch -e dtl/all/" it would map none, and the
	 * records would all be lost.  As intel-pt does, dtl goes first.
	 */
	if (dtl_evsel)
		evlist__to_front(evlist, dtl_evsel);

	/*
	 * perf cuts what it reads of an overwritten buffer to whole records:
	 * in snapshot mode, and in format 1, those are all of 64 bytes.
	 */
	if (dr->format == PERF_DTL_FORMAT_ENTRY || opts->auxtrace_snapshot_mode)
		itr->alignment = PERF_DTL_ENTRY_SIZE;

	if (opts->full_auxtrace && !opts->auxtrace_mmap_pages) {
		/* 1 MiB: 32768 compact records. */
		opts->auxtrace_mmap_pages = (1024 * 1024) / page_size;
	}
	if (opts->full_auxtrace &&
	    opts->auxtrace_mmap_pages < PERF_DTL_AUX_MIN_PAGES) {
		pr_err("dtl: an AUX buffer of %u page(s) is too small: -m ,%d at least\n",
		       opts->auxtrace_mmap_pages, PERF_DTL_AUX_MIN_PAGES);
		return -EINVAL;
	}

	/*
	 * Snapshot mode: the kernel overwrites the buffer and its head only
	 * grows, so perf's generic code finds the newest data; a snapshot
	 * is the whole buffer unless -S gave a size.
	 */
	if (opts->auxtrace_snapshot_mode) {
		size_t whole = opts->auxtrace_mmap_pages * (size_t)page_size;

		if (!opts->auxtrace_snapshot_size)
			opts->auxtrace_snapshot_size = whole;
		if (opts->auxtrace_snapshot_size > whole ||
		    opts->auxtrace_snapshot_size % PERF_DTL_ENTRY_SIZE) {
			pr_err("dtl: the snapshot size must be a multiple of %d bytes, at most the AUX buffer's %zu\n",
			       PERF_DTL_ENTRY_SIZE, whole);
			return -EINVAL;
		}
	}
	return 0;
}

static int dtl_parse_snapshot_options(struct auxtrace_record *itr __maybe_unused,
				      struct record_opts *opts,
				      const char *str)
{
	unsigned long long size = 0;
	char *end;

	if (str && *str) {
		size = strtoull(str, &end, 0);
		if (*end) {
			pr_err("dtl: bad snapshot size '%s'\n", str);
			return -EINVAL;
		}
	}
	opts->auxtrace_snapshot_mode = true;
	opts->auxtrace_snapshot_size = size;
	return 0;
}

/* Stop the trace events while a snapshot is taken, then go on. */
static int dtl_snapshot_toggle(struct auxtrace_record *itr, bool on)
{
	struct dtl_recording *dr = container_of(itr, struct dtl_recording, itr);
	struct evsel *evsel;
	int err;

	evlist__for_each_entry(itr->evlist, evsel) {
		if (evsel->core.attr.type != dr->pmu->type)
			continue;
		err = on ? evsel__enable(evsel) : evsel__disable(evsel);
		if (err)
			return err;
	}
	return 0;
}

static int dtl_snapshot_start(struct auxtrace_record *itr)
{
	return dtl_snapshot_toggle(itr, false);
}

static int dtl_snapshot_finish(struct auxtrace_record *itr)
{
	return dtl_snapshot_toggle(itr, true);
}

/*
 * Where a snapshot begins.  The kernel's head only grows, also when it
 * overwrites the buffer, so once the head is more than a buffer ahead of
 * the last snapshot the whole buffer is new: without this, perf would
 * take only the head's offset past the last wrap, and snapshots shrank
 * once the buffer had wrapped.
 */
static int dtl_find_snapshot(struct auxtrace_record *itr __maybe_unused,
			     int idx __maybe_unused, struct auxtrace_mmap *mm,
			     unsigned char *data __maybe_unused, u64 *head,
			     u64 *old)
{
	if (*head - *old > mm->len)
		*old = *head - mm->len;
	return 0;
}

/* Records carry their own timestamps: buffers need no reference. */
static u64 dtl_reference(struct auxtrace_record *itr __maybe_unused)
{
	return 0;
}

static void dtl_recording_free(struct auxtrace_record *itr)
{
	free(container_of(itr, struct dtl_recording, itr));
}

struct auxtrace_record *dtl_recording_init(struct evlist *evlist, int *err)
{
	struct perf_pmu *pmu = perf_pmus__find(DTL_PMU_NAME);
	struct dtl_recording *dr;
	struct evsel *evsel;
	bool found = false;

	*err = 0;
	if (!pmu || !evlist)
		return NULL;
	evlist__for_each_entry(evlist, evsel)
		found |= evsel->core.attr.type == pmu->type;
	if (!found)
		return NULL;

	dr = zalloc(sizeof(*dr));
	if (!dr) {
		*err = -ENOMEM;
		return NULL;
	}
	dr->pmu = pmu;
	dr->format = PERF_DTL_FORMAT_COMPACT;
	dr->itr.recording_options = dtl_recording_options;
	dr->itr.info_priv_size = dtl_info_priv_size;
	dr->itr.info_fill = dtl_info_fill;
	dr->itr.free = dtl_recording_free;
	dr->itr.reference = dtl_reference;
	dr->itr.parse_snapshot_options = dtl_parse_snapshot_options;
	dr->itr.snapshot_start = dtl_snapshot_start;
	dr->itr.snapshot_finish = dtl_snapshot_finish;
	dr->itr.find_snapshot = dtl_find_snapshot;
	dr->itr.read_finish = auxtrace_record__read_finish;
	dr->itr.alignment = PERF_DTL_SLOT_SIZE;
	return &dr->itr;
}
