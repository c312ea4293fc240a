/* A usrsctp peer for sctplab's live-mode interop tests: the same test messages and
 * result line as `sctplab live server|client` (CONTRACTS.md "Live mode"), over UDP
 * encapsulation (RFC 6951), on loopback.
 *
 *   usrsctp_peer server UDP_PORT SCTP_PORT TIMEOUT_S
 *   usrsctp_peer client UDP_PORT REMOTE_UDP_PORT SCTP_PORT STREAMS MESSAGES SIZE TIMEOUT_S
 *
 * Either takes trailing options. `--reconfig`: RE-CONFIG (RFC 6525) requests accepted
 * (SCTP_ENABLE_STREAM_RESET); the server then checks that the first message of a stream
 * after the peer reset it has SSN 0 and reports "resets" (incoming-SSN reset events),
 * "ssn0_after_reset" and "bad_ssn_after_reset". `--reset-after N` (client; implies
 * --reconfig): after its N-th message it asks for an outgoing SSN reset of all its
 * streams (SCTP_RESET_STREAMS) and reports "resets_performed" and "resets_refused".
 * `--auth`: AUTH on (RFC 4895; usrsctp's sysctl auth_enable) and
 * SACK added to the chunks the peer must authenticate (SCTP_AUTH_CHUNK), so every SACK
 * either end sends carries an AUTH chunk. DATA is not asked for: sctplab's driver writes
 * the message bytes into DATA after its machine has built (and signed) the packet.
 * `--interleave`: I-DATA offered (RFC 8260; SCTP_FRAGMENT_INTERLEAVE level 2, then
 * SCTP_INTERLEAVING_SUPPORTED); the server then puts each stream's message together
 * apart, as partial deliveries of different streams may alternate.
 * `--pr ttl:MS` or `--pr rtx:N`: PR-SCTP (RFC 3758; SCTP_PR_SUPPORTED): the client sends
 * every message with that policy (sctp_sendv with SCTP_PR_SCTP_TTL or SCTP_PR_SCTP_RTX)
 * and counts usrsctp's SCTP_SEND_FAILED_EVENT notifications of abandoned messages
 * ("abandoned_sent", "abandoned_unsent"); the server accepts a message number that
 * skips ahead within its stream (messages the peer abandoned) and counts the skipped
 * ones ("skipped"), while a number going back is still an error.
 *
 * Prints one JSON line: messages, bytes, streams, errors (server: out of order within
 * a stream or wrong content), graceful (the association ended by SHUTDOWN, not ABORT),
 * elapsed_s (server: first to last message; client: connect to shutdown complete) and
 * usrsctp's own counters of T3 timeouts, fast retransmissions, retransmitted chunks
 * and duplicate DATA chunks received; with --auth or --reconfig, a second line with
 * usrsctp's AUTH counters ("auth_received", "auth_missing", "auth_failed", "auth_sent")
 * and the reset counts, and (also with --interleave) "idata" and "pr": whether usrsctp's
 * SCTP_COMM_UP notification listed interleaving and PR-SCTP among the association's
 * features (RFC 6458 sac_info, both ends announced them). Exit 0 if graceful with no errors, 1 otherwise, 3 on timeout. */
#include <errno.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <usrsctp.h>

#define MAX_STREAMS 64
#define BUF_LEN (1 << 17)
/* A stream's message being put together (--interleave); test messages are smaller. */
#define PMSG_LEN (1 << 15)

/* usrsctp 0.9.5's usrsctp.h does not export it; the library implements it. */
#ifndef SCTP_INTERLEAVING_SUPPORTED
#define SCTP_INTERLEAVING_SUPPORTED 0x00001206
#endif

static unsigned char buf[BUF_LEN];
static unsigned char msg[BUF_LEN];

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static unsigned char message_byte(uint32_t k, uint16_t s, size_t i) {
  if (i < 4) return (unsigned char)(k >> (8 * (3 - i)));
  return (unsigned char)((s + i) % 256);
}

static void on_alarm(int sig) {
  (void)sig;
  static const char line[] = "{\"timeout\": true}\n";
  ssize_t w = write(1, line, sizeof line - 1);
  (void)w;
  _exit(3);
}

static void subscribe(struct socket *s) {
  struct sctp_event ev;
  memset(&ev, 0, sizeof ev);
  ev.se_assoc_id = SCTP_FUTURE_ASSOC;
  ev.se_on = 1;
  ev.se_type = SCTP_ASSOC_CHANGE;
  usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_EVENT, &ev, sizeof ev);
}

static void print_result(unsigned long messages, unsigned long long bytes,
                         const unsigned long *per_stream, int nstreams, unsigned long errors,
                         int graceful, double elapsed) {
  struct sctpstat st;
  memset(&st, 0, sizeof st);
  usrsctp_get_stat(&st);
  printf("{\"messages\": %lu, \"bytes\": %llu, \"streams\": {", messages, bytes);
  int first = 1;
  for (int i = 0; i < nstreams; i++) {
    if (per_stream[i] == 0) continue;
    printf("%s\"%d\": %lu", first ? "" : ", ", i, per_stream[i]);
    first = 0;
  }
  printf("}, \"errors\": %lu, \"graceful\": %s, \"elapsed_s\": %.6f, \"t3\": %u, "
         "\"fast_rtx\": %u, \"rtx_chunks\": %u, \"dup_data\": %u}\n",
         errors, graceful ? "true" : "false", elapsed, st.sctps_timodata,
         st.sctps_sendfastretrans, st.sctps_sendretransdata, st.sctps_recvdupdata);
  fflush(stdout);
}

static int idata_negotiated, pr_negotiated;

/* Returns 1 if the notification says the association ended badly, 2 if it ended by
 * shutdown, 0 otherwise. SCTP_COMM_UP lists the features both ends support in sac_info
 * (RFC 6458 6.1.1): interleaving and PR-SCTP are noted. */
static int assoc_change(const unsigned char *p, ssize_t n) {
  const union sctp_notification *sn = (const union sctp_notification *)p;
  if (n < (ssize_t)sizeof(struct sctp_assoc_change) ||
      sn->sn_header.sn_type != SCTP_ASSOC_CHANGE)
    return 0;
  if (sn->sn_assoc_change.sac_state == SCTP_COMM_UP) {
    size_t len = sn->sn_assoc_change.sac_length;
    if (len > (size_t)n) len = (size_t)n;
    for (size_t i = sizeof(struct sctp_assoc_change); i < len; i++) {
      unsigned char f = p[i];
      if (f == SCTP_ASSOC_SUPPORTS_INTERLEAVING) idata_negotiated = 1;
      if (f == SCTP_ASSOC_SUPPORTS_PR) pr_negotiated = 1;
    }
  }
  switch (sn->sn_assoc_change.sac_state) {
  case SCTP_COMM_LOST:
  case SCTP_CANT_STR_ASSOC:
    return 1;
  case SCTP_SHUTDOWN_COMP:
    return 2;
  default:
    return 0;
  }
}

static int auth_on, reconfig_on, interleave_on;
static uint16_t pr_policy; /* 0: reliable */
static uint32_t pr_value;
static unsigned long abandoned_sent, abandoned_unsent, skipped;
static long reset_after = -1;
static unsigned long resets, ssn0_after_reset, bad_ssn_after_reset;
static unsigned long resets_performed, resets_refused;
static unsigned char reset_pending[MAX_STREAMS];

/* RFC 6525: accept the peer's reset requests and allow our own; stream reset events. */
static void enable_reconfig(struct socket *s) {
  if (!reconfig_on) return;
  struct sctp_assoc_value av;
  memset(&av, 0, sizeof av);
  av.assoc_id = SCTP_FUTURE_ASSOC;
  av.assoc_value = SCTP_ENABLE_RESET_STREAM_REQ;
  if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_ENABLE_STREAM_RESET, &av, sizeof av) < 0)
    perror("SCTP_ENABLE_STREAM_RESET");
  struct sctp_event ev;
  memset(&ev, 0, sizeof ev);
  ev.se_assoc_id = SCTP_FUTURE_ASSOC;
  ev.se_on = 1;
  ev.se_type = SCTP_STREAM_RESET_EVENT;
  usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_EVENT, &ev, sizeof ev);
}

/* A stream reset notification: an incoming reset marks its streams (all of them for an
 * empty list) so that their next message is checked for SSN 0 (RFC 6525 5.2.2); an
 * outgoing one counts as performed or refused. */
static void on_stream_reset(const unsigned char *p, ssize_t n) {
  const union sctp_notification *sn = (const union sctp_notification *)p;
  if (n < (ssize_t)sizeof(struct sctp_stream_reset_event) ||
      sn->sn_header.sn_type != SCTP_STREAM_RESET_EVENT)
    return;
  const struct sctp_stream_reset_event *e = &sn->sn_strreset_event;
  int failed = (e->strreset_flags & (SCTP_STREAM_RESET_DENIED | SCTP_STREAM_RESET_FAILED)) != 0;
  if (e->strreset_flags & SCTP_STREAM_RESET_OUTGOING_SSN) {
    if (failed) resets_refused++; else resets_performed++;
  }
  if ((e->strreset_flags & SCTP_STREAM_RESET_INCOMING_SSN) && !failed) {
    resets++;
    size_t count = (e->strreset_length - sizeof *e) / sizeof(uint16_t);
    if (count == 0) memset(reset_pending, 1, sizeof reset_pending);
    for (size_t i = 0; i < count; i++)
      if (e->strreset_stream_list[i] < MAX_STREAMS) reset_pending[e->strreset_stream_list[i]] = 1;
  }
}

/* A second line with --auth or --reconfig: usrsctp's AUTH counters (chunks received,
 * covered chunks that came without one, failed checks, sent) and the resets. */
static void print_extensions(void) {
  if (!reconfig_on && !auth_on && !interleave_on && !pr_policy) return;
  struct sctpstat st;
  memset(&st, 0, sizeof st);
  usrsctp_get_stat(&st);
  printf("{\"auth_received\": %u, \"auth_missing\": %u, \"auth_failed\": %u, "
         "\"auth_sent\": %u, \"resets\": %lu, \"ssn0_after_reset\": %lu, "
         "\"bad_ssn_after_reset\": %lu, \"resets_performed\": %lu, \"resets_refused\": %lu, "
         "\"idata\": %d, \"pr\": %d, \"abandoned_sent\": %lu, \"abandoned_unsent\": %lu, "
         "\"skipped\": %lu}\n",
         st.sctps_recvauth, st.sctps_recvauthmissing, st.sctps_recvauthfailed, st.sctps_sendauth,
         resets, ssn0_after_reset, bad_ssn_after_reset, resets_performed, resets_refused,
         idata_negotiated, pr_negotiated, abandoned_sent, abandoned_unsent, skipped);
  fflush(stdout);
}

/* RFC 4895: AUTH on, and SACK (chunk type 3) among the chunks the peer must sign. */
static void enable_auth(struct socket *s) {
  if (!auth_on) return;
  struct sctp_authchunk ac;
  memset(&ac, 0, sizeof ac);
  ac.sauth_chunk = 3;
  if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_AUTH_CHUNK, &ac, sizeof ac) < 0)
    perror("SCTP_AUTH_CHUNK");
}

/* RFC 8260: I-DATA offered. usrsctp takes it only with fragment interleave level 2. */
static void enable_interleave(struct socket *s) {
  if (!interleave_on) return;
  int level = 2;
  if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_FRAGMENT_INTERLEAVE, &level, sizeof level) < 0)
    perror("SCTP_FRAGMENT_INTERLEAVE");
  struct sctp_assoc_value av;
  memset(&av, 0, sizeof av);
  av.assoc_id = SCTP_FUTURE_ASSOC;
  av.assoc_value = 1;
  if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_INTERLEAVING_SUPPORTED, &av, sizeof av) < 0)
    perror("SCTP_INTERLEAVING_SUPPORTED");
}

/* RFC 3758: PR-SCTP on, and the notifications of abandoned messages. */
static void enable_pr(struct socket *s) {
  if (!pr_policy) return;
  struct sctp_assoc_value av;
  memset(&av, 0, sizeof av);
  av.assoc_id = SCTP_FUTURE_ASSOC;
  av.assoc_value = 1;
  if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_PR_SUPPORTED, &av, sizeof av) < 0)
    perror("SCTP_PR_SUPPORTED");
  struct sctp_event ev;
  memset(&ev, 0, sizeof ev);
  ev.se_assoc_id = SCTP_FUTURE_ASSOC;
  ev.se_on = 1;
  ev.se_type = SCTP_SEND_FAILED_EVENT;
  usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_EVENT, &ev, sizeof ev);
}

/* An abandoned message (SCTP_SEND_FAILED_EVENT): counted as sent or never sent. */
static void on_send_failed(const unsigned char *p, ssize_t n) {
  const union sctp_notification *sn = (const union sctp_notification *)p;
  if (n < (ssize_t)sizeof(struct sctp_send_failed_event) ||
      sn->sn_header.sn_type != SCTP_SEND_FAILED_EVENT)
    return;
  if (sn->sn_send_failed_event.ssfe_flags & SCTP_DATA_SENT) abandoned_sent++;
  else abandoned_unsent++;
}

static void finish(void) {
  for (int i = 0; i < 300 && usrsctp_finish() != 0; i++) usleep(10000);
}

static int run_server(uint16_t udp_port, uint16_t sctp_port) {
  usrsctp_init(udp_port, NULL, NULL);
  if (auth_on) usrsctp_sysctl_set_sctp_auth_enable(1); /* 1 is also its default */
  struct socket *s = usrsctp_socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0, NULL);
  if (!s) { perror("usrsctp_socket"); return 1; }
  enable_auth(s);
  enable_reconfig(s);
  enable_interleave(s);
  enable_pr(s);
  const int on = 1;
  usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_RECVRCVINFO, &on, sizeof on);
  struct sctp_initmsg im;
  memset(&im, 0, sizeof im);
  im.sinit_num_ostreams = 1;
  im.sinit_max_instreams = MAX_STREAMS;
  usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_INITMSG, &im, sizeof im);
  subscribe(s);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons(sctp_port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (usrsctp_bind(s, (struct sockaddr *)&a, sizeof a) < 0) { perror("bind"); return 1; }
  if (usrsctp_listen(s, 1) < 0) { perror("listen"); return 1; }
  struct socket *c = usrsctp_accept(s, NULL, NULL);
  if (!c) { perror("accept"); return 1; }
  subscribe(c);
  usrsctp_setsockopt(c, IPPROTO_SCTP, SCTP_RECVRCVINFO, &on, sizeof on);
  unsigned long per_stream[MAX_STREAMS] = {0}, messages = 0, errors = 0;
  unsigned long long bytes = 0;
  static unsigned char pmsg[MAX_STREAMS][PMSG_LEN];
  static size_t phave[MAX_STREAMS];
  static uint32_t next_k[MAX_STREAMS];
  size_t have = 0;
  int graceful = 1, partial_sid = -1;
  double t_first = 0, t_last = 0;
  for (;;) {
    struct sctp_rcvinfo ri;
    socklen_t ilen = sizeof ri, flen = sizeof a;
    unsigned int itype = 0;
    int flags = 0;
    ssize_t n = usrsctp_recvv(c, buf, sizeof buf, (struct sockaddr *)&a, &flen, &ri, &ilen,
                              &itype, &flags);
    if (n < 0) { graceful = 0; break; }
    if (n == 0) break;
    if (flags & MSG_NOTIFICATION) {
      on_stream_reset(buf, n);
      int r = assoc_change(buf, n);
      if (r == 1) { graceful = 0; break; }
      if (r == 2) break;
      continue;
    }
    int sid = itype == SCTP_RECVV_RCVINFO ? ri.rcv_sid : 0;
    if (interleave_on) {
      /* Level 2: a partial delivery of one stream may be followed by another's. */
      if (sid >= MAX_STREAMS || phave[sid] + (size_t)n > PMSG_LEN) {
        errors++;
        if (sid < MAX_STREAMS) phave[sid] = 0;
        continue;
      }
      memcpy(pmsg[sid] + phave[sid], buf, (size_t)n);
      phave[sid] += (size_t)n;
      if (!(flags & MSG_EOR)) continue;
      memcpy(msg, pmsg[sid], phave[sid]);
      have = phave[sid];
      phave[sid] = 0;
      partial_sid = -1;
      goto whole;
    }
    if (partial_sid >= 0 && partial_sid != sid) { errors++; have = 0; }
    partial_sid = sid;
    if (have + (size_t)n > sizeof msg) { errors++; have = 0; continue; }
    memcpy(msg + have, buf, (size_t)n);
    have += (size_t)n;
    if (!(flags & MSG_EOR)) continue;
  whole:
    if (sid < MAX_STREAMS && reset_pending[sid] && itype == SCTP_RECVV_RCVINFO) {
      if (ri.rcv_ssn == 0) ssn0_after_reset++; else bad_ssn_after_reset++;
      reset_pending[sid] = 0;
    }
    if (messages == 0) t_first = now_s();
    t_last = now_s();
    uint32_t k = sid < MAX_STREAMS ? next_k[sid] : 0;
    if (pr_policy && have >= 4 && sid < MAX_STREAMS) {
      /* PR-SCTP: messages the peer abandoned leave gaps in the numbering. */
      uint32_t got = (uint32_t)msg[0] << 24 | (uint32_t)msg[1] << 16 | (uint32_t)msg[2] << 8 | msg[3];
      if (got > k) { skipped += got - k; k = got; }
    }
    if (sid < MAX_STREAMS) next_k[sid] = k + 1;
    int ok = sid < MAX_STREAMS;
    for (size_t i = 0; ok && i < have; i++) ok = msg[i] == message_byte(k, (uint16_t)sid, i);
    if (!ok) errors++;
    if (sid < MAX_STREAMS) per_stream[sid]++;
    messages++;
    bytes += have;
    have = 0;
    partial_sid = -1;
  }
  if (have) errors++;
  for (int i = 0; i < MAX_STREAMS; i++)
    if (phave[i]) errors++;
  print_result(messages, bytes, per_stream, MAX_STREAMS, errors, graceful, t_last - t_first);
  print_extensions();
  usrsctp_close(c);
  usrsctp_close(s);
  finish();
  return graceful && errors == 0 ? 0 : 1;
}

static int run_client(uint16_t udp_port, uint16_t remote_udp, uint16_t sctp_port, int streams,
                      unsigned long count, size_t size) {
  if (streams < 1 || streams > MAX_STREAMS || size > sizeof msg) return 2;
  usrsctp_init(udp_port, NULL, NULL);
  if (auth_on) usrsctp_sysctl_set_sctp_auth_enable(1); /* 1 is also its default */
  struct socket *s = usrsctp_socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0, NULL);
  if (!s) { perror("usrsctp_socket"); return 1; }
  enable_auth(s);
  enable_reconfig(s);
  enable_interleave(s);
  enable_pr(s);
  struct sctp_udpencaps enc;
  memset(&enc, 0, sizeof enc);
  enc.sue_address.ss_family = AF_INET;
  enc.sue_port = htons(remote_udp);
  if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_REMOTE_UDP_ENCAPS_PORT, &enc, sizeof enc) < 0) {
    perror("SCTP_REMOTE_UDP_ENCAPS_PORT");
    return 1;
  }
  struct sctp_initmsg im;
  memset(&im, 0, sizeof im);
  im.sinit_num_ostreams = (uint16_t)streams;
  im.sinit_max_instreams = 1;
  usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_INITMSG, &im, sizeof im);
  const int on = 1;
  usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_NODELAY, &on, sizeof on);
  subscribe(s);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons(sctp_port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  double t0 = now_s();
  if (usrsctp_connect(s, (struct sockaddr *)&a, sizeof a) < 0) { perror("connect"); return 1; }
  unsigned long per_stream[MAX_STREAMS] = {0};
  for (unsigned long m = 0; m < count; m++) {
    int sid = (int)(m % (unsigned long)streams);
    uint32_t k = (uint32_t)per_stream[sid];
    for (size_t i = 0; i < size; i++) msg[i] = message_byte(k, (uint16_t)sid, i);
    struct sctp_sndinfo si;
    memset(&si, 0, sizeof si);
    si.snd_sid = (uint16_t)sid;
    ssize_t w;
    /* usrsctp refuses (EAGAIN) a send on a stream whose reset is still pending
     * (RFC 6525 5.1.2: new data waits for the reset): retry until it is done. */
    struct sctp_sendv_spa spa;
    memset(&spa, 0, sizeof spa);
    spa.sendv_flags = SCTP_SEND_SNDINFO_VALID | SCTP_SEND_PRINFO_VALID;
    spa.sendv_sndinfo = si;
    spa.sendv_prinfo.pr_policy = pr_policy;
    spa.sendv_prinfo.pr_value = pr_value;
    while ((w = pr_policy
                    ? usrsctp_sendv(s, msg, size, NULL, 0, &spa, sizeof spa, SCTP_SENDV_SPA, 0)
                    : usrsctp_sendv(s, msg, size, NULL, 0, &si, sizeof si, SCTP_SENDV_SNDINFO, 0)) < 0 &&
           errno == EAGAIN && reset_after >= 0)
      usleep(1000);
    if (w != (ssize_t)size) {
      perror("sendv");
      print_result(m, 0, per_stream, streams, 1, 0, now_s() - t0);
      return 1;
    }
    per_stream[sid]++;
    if (reset_after >= 0 && m + 1 == (unsigned long)reset_after) {
      /* RFC 6525 5.1.2: an Outgoing SSN Reset Request for every stream (empty list). */
      struct sctp_reset_streams rs;
      memset(&rs, 0, sizeof rs);
      rs.srs_assoc_id = SCTP_ALL_ASSOC;
      rs.srs_flags = SCTP_STREAM_RESET_OUTGOING;
      rs.srs_number_streams = 0;
      if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_RESET_STREAMS, &rs, sizeof rs) < 0) {
        perror("SCTP_RESET_STREAMS");
        resets_refused++;
      }
    }
  }
  usrsctp_shutdown(s, SHUT_WR);
  int graceful = 0;
  for (;;) {
    int flags = 0;
    socklen_t flen = sizeof a, ilen = 0;
    unsigned int itype = 0;
    ssize_t n = usrsctp_recvv(s, buf, sizeof buf, (struct sockaddr *)&a, &flen, NULL, &ilen,
                              &itype, &flags);
    if (n <= 0) break;
    if (flags & MSG_NOTIFICATION) {
      on_stream_reset(buf, n);
      on_send_failed(buf, n);
      int r = assoc_change(buf, n);
      if (r == 2) graceful = 1;
      if (r) break;
    }
  }
  double elapsed = now_s() - t0;
  unsigned long kept = count - abandoned_sent - abandoned_unsent;
  print_result(kept, (unsigned long long)kept * size, per_stream, streams, 0, graceful, elapsed);
  print_extensions();
  usrsctp_close(s);
  finish();
  return graceful ? 0 : 1;
}

int main(int argc, char **argv) {
  for (;;) {
    if (argc > 1 && strcmp(argv[argc - 1], "--auth") == 0) {
      auth_on = 1;
      argc--;
    } else if (argc > 2 && strcmp(argv[argc - 2], "--pr") == 0) {
      const char *v = argv[argc - 1];
      if (strncmp(v, "ttl:", 4) == 0) pr_policy = SCTP_PR_SCTP_TTL;
      else if (strncmp(v, "rtx:", 4) == 0) pr_policy = SCTP_PR_SCTP_RTX;
      else { fprintf(stderr, "--pr %s: expected ttl:MS or rtx:N\n", v); return 2; }
      pr_value = (uint32_t)strtoul(v + 4, NULL, 10);
      argc -= 2;
    } else if (argc > 1 && strcmp(argv[argc - 1], "--interleave") == 0) {
      interleave_on = 1;
      argc--;
    } else if (argc > 1 && strcmp(argv[argc - 1], "--reconfig") == 0) {
      reconfig_on = 1;
      argc--;
    } else if (argc > 2 && strcmp(argv[argc - 2], "--reset-after") == 0) {
      reset_after = strtol(argv[argc - 1], NULL, 10);
      reconfig_on = 1;
      argc -= 2;
    } else {
      break;
    }
  }
  if (argc == 5 && strcmp(argv[1], "server") == 0) {
    signal(SIGALRM, on_alarm);
    alarm((unsigned)atoi(argv[4]));
    return run_server((uint16_t)atoi(argv[2]), (uint16_t)atoi(argv[3]));
  }
  if (argc == 9 && strcmp(argv[1], "client") == 0) {
    signal(SIGALRM, on_alarm);
    alarm((unsigned)atoi(argv[8]));
    return run_client((uint16_t)atoi(argv[2]), (uint16_t)atoi(argv[3]), (uint16_t)atoi(argv[4]),
                      atoi(argv[5]), strtoul(argv[6], NULL, 10), (size_t)strtoul(argv[7], NULL, 10));
  }
  fprintf(stderr, "usage: %s server UDP SCTP_PORT TIMEOUT | client UDP REMOTE_UDP SCTP_PORT "
                  "STREAMS MESSAGES SIZE TIMEOUT [--auth] [--reconfig] [--reset-after N] "
                  "[--interleave] [--pr ttl:MS|rtx:N]\n", argv[0]);
  return 2;
}
