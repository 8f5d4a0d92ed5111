/*
 * srt-gate: the SRT listener of the Stagedoor ingest (a small native helper,
 * because no Node SRT binding installs here; see docs/ingest.md, "SRT").
 *
 *   srt-gate <host> <port> <unix-socket-path> <latency-ms> <peer-idle-ms>
 *
 * Protocol with the Node parent (one JSON object or command per line):
 *   stdout  {"type":"listening","port":N}
 *           {"type":"caller","id":N,"streamid":"…","peer":"ip:port"}   a caller's handshake waits for an answer
 *           {"type":"failed","id":N}                                   an accepted caller's handshake failed after all (passphrase)
 *           {"type":"end","id":N,"how":"clean"|"dead"|"cut"}           an accepted caller is gone
 *           {"type":"error","message":"…"}
 *   stdin   accept <id> [<passphrase>]      admit; the passphrase is set on the socket (encryption enforced)
 *           reject <id> <code>              refuse in the handshake with this reject reason (1401, 1403, …)
 * Each accepted caller gets its own connection to the Unix socket: a first
 * line {"id":N}, then the MPEG-TS it sends. When Node closes that connection
 * the SRT socket is closed.
 *
 * The listen callback runs on libsrt's receive thread, which also carries the
 * data of every caller already on this port: its wait for Node is bounded
 * (ANSWER_WAIT_MS) and Node must answer fast.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <srt/srt.h>

#define ANSWER_WAIT_MS 3000
#define MAX_PENDING 64
#define PASSPHRASE_MAX 80
/* A break this soon after the last packet came from the caller's shutdown message (a clean close);
   a dead caller is only noticed after SRTO_PEERIDLETIMEO of silence. */
#define CLEAN_BREAK_MS 1000
#define SRT_REJX_DOWN 1503

struct pending {
    SRTSOCKET id;
    int answered;
    int accept;
    int reason;
    char passphrase[PASSPHRASE_MAX];
};

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pending_cond = PTHREAD_COND_INITIALIZER;
static struct pending pending[MAX_PENDING];
static const char *unix_path;
static int peer_idle_ms;

static long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One line on stdout at a time: the callback and the pump threads all write. */
static void emit(const char *line) {
    pthread_mutex_lock(&out_lock);
    fputs(line, stdout);
    fputc('\n', stdout);
    fflush(stdout);
    pthread_mutex_unlock(&out_lock);
}

/* JSON string escaping of untrusted text (the stream id comes from the caller). */
static void json_escape(const char *in, char *out, size_t size) {
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p && o + 7 < size; p++) {
        if (*p == '"' || *p == '\\') { out[o++] = '\\'; out[o++] = (char)*p; }
        else if (*p < 0x20 || *p >= 0x7f) o += (size_t)snprintf(out + o, size - o, "\\u%04x", *p);
        else out[o++] = (char)*p;
    }
    out[o] = 0;
}

static void peer_text(const struct sockaddr *addr, char *out, size_t size) {
    char ip[INET6_ADDRSTRLEN] = "";
    if (addr->sa_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)addr;
        inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip);
        if (strncmp(ip, "::ffff:", 7) == 0 && strchr(ip + 7, '.')) snprintf(out, size, "%s:%d", ip + 7, ntohs(a->sin6_port));
        else snprintf(out, size, "[%s]:%d", ip, ntohs(a->sin6_port));
    } else {
        const struct sockaddr_in *a = (const struct sockaddr_in *)addr;
        inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
        snprintf(out, size, "%s:%d", ip, ntohs(a->sin_port));
    }
}

static struct pending *slot_take(SRTSOCKET id) {
    for (int i = 0; i < MAX_PENDING; i++) {
        if (pending[i].id == 0) {
            memset(&pending[i], 0, sizeof pending[i]);
            pending[i].id = id;
            return &pending[i];
        }
    }
    return NULL;
}

/* After an accept, libsrt still checks the caller's key material against the passphrase: a socket that
   never gets connected failed there, and Node gives back what it took for the caller (the lease) at once. */
static void *watch_handshake(void *arg) {
    SRTSOCKET s = (SRTSOCKET)(long)arg;
    for (int i = 0; i < 100; i++) {
        SRT_SOCKSTATUS st = srt_getsockstate(s);
        if (st == SRTS_CONNECTED) return NULL;
        if (st == SRTS_BROKEN || st == SRTS_CLOSING || st == SRTS_CLOSED || st == SRTS_NONEXIST) break;
        usleep(20 * 1000);
    }
    char line[64];
    snprintf(line, sizeof line, "{\"type\":\"failed\",\"id\":%d}", s);
    emit(line);
    return NULL;
}

/* libsrt calls this on its receive thread when a caller's conclusion handshake arrives. */
static int on_caller(void *opaque, SRTSOCKET ns, int hsversion, const struct sockaddr *peer, const char *streamid) {
    (void)opaque;
    (void)hsversion;
    char peer_buf[80], sid[1024], line[1400];
    peer_text(peer, peer_buf, sizeof peer_buf);
    json_escape(streamid ? streamid : "", sid, sizeof sid);

    pthread_mutex_lock(&pending_lock);
    struct pending *slot = slot_take(ns);
    pthread_mutex_unlock(&pending_lock);
    if (!slot) {
        srt_setrejectreason(ns, SRT_REJX_DOWN);
        return -1;
    }
    snprintf(line, sizeof line, "{\"type\":\"caller\",\"id\":%d,\"streamid\":\"%s\",\"peer\":\"%s\"}", ns, sid, peer_buf);
    emit(line);

    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += ANSWER_WAIT_MS / 1000;
    deadline.tv_nsec += (ANSWER_WAIT_MS % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) { deadline.tv_sec++; deadline.tv_nsec -= 1000000000L; }
    pthread_mutex_lock(&pending_lock);
    while (!slot->answered) {
        if (pthread_cond_timedwait(&pending_cond, &pending_lock, &deadline) == ETIMEDOUT) break;
    }
    struct pending answer = *slot;
    slot->id = 0;
    pthread_mutex_unlock(&pending_lock);

    if (!answer.answered || !answer.accept) {
        srt_setrejectreason(ns, answer.answered ? answer.reason : SRT_REJX_DOWN);
        return -1;
    }
    if (answer.passphrase[0]) {
        int on = 1;
        if (srt_setsockflag(ns, SRTO_PASSPHRASE, answer.passphrase, (int)strlen(answer.passphrase)) != 0 ||
            srt_setsockflag(ns, SRTO_ENFORCEDENCRYPTION, &on, sizeof on) != 0) {
            srt_setrejectreason(ns, SRT_REJX_DOWN);
            return -1;
        }
    }
    pthread_t watcher;
    if (pthread_create(&watcher, NULL, watch_handshake, (void *)(long)ns) == 0) pthread_detach(watcher);
    return 0;
}

/* Node's answers: "accept <id> [<passphrase>]" or "reject <id> <code>". */
static void *read_answers(void *arg) {
    (void)arg;
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        char verb[16] = "", extra[PASSPHRASE_MAX] = "";
        int id = 0;
        if (sscanf(line, "%15s %d %79s", verb, &id, extra) < 2) continue;
        pthread_mutex_lock(&pending_lock);
        for (int i = 0; i < MAX_PENDING; i++) {
            if (pending[i].id != id || id == 0) continue;
            pending[i].answered = 1;
            pending[i].accept = strcmp(verb, "accept") == 0;
            pending[i].reason = pending[i].accept ? 0 : atoi(extra);
            if (pending[i].accept) snprintf(pending[i].passphrase, sizeof pending[i].passphrase, "%s", extra);
        }
        pthread_cond_broadcast(&pending_cond);
        pthread_mutex_unlock(&pending_lock);
    }
    /* Node is gone: nothing may be admitted any more. _exit, not exit: libsrt's global destructor
       waits for its own threads, one of which may be in our listen callback. */
    _exit(0);
    return NULL;
}

static int connect_node(SRTSOCKET id) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", unix_path);
    if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        if (fd >= 0) close(fd);
        return -1;
    }
    char header[64];
    int n = snprintf(header, sizeof header, "{\"id\":%d}\n", id);
    if (write(fd, header, (size_t)n) != n) {
        close(fd);
        return -1;
    }
    return fd;
}

static int write_all(int fd, const char *data, int size) {
    while (size > 0) {
        ssize_t n = write(fd, data, (size_t)size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        data += n;
        size -= (int)n;
    }
    return 0;
}

/* Node closed its side (the show was cut, or the remux ended). */
static int node_closed(int fd) {
    struct pollfd p = {.fd = fd, .events = POLLIN | POLLRDHUP};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLRDHUP | POLLERR | POLLIN));
}

/* SRTO_RCVTIMEO ran out with nothing received (libsrt reports it as a timeout in blocking mode). */
static int receive_timed_out(void) {
    int code = srt_getlasterror(NULL);
    return code == SRT_ETIMEOUT || code == SRT_EASYNCRCV;
}

/* One accepted caller: its packets to Node until either side ends, then how it ended. */
static void *pump(void *arg) {
    SRTSOCKET s = (SRTSOCKET)(long)arg;
    int fd = connect_node(s);
    const char *how = "dead";
    if (fd >= 0) {
        char buf[1500];
        long long last = now_ms();
        for (;;) {
            int n = srt_recvmsg(s, buf, sizeof buf);
            if (n > 0) {
                last = now_ms();
                if (write_all(fd, buf, n) != 0) { how = "cut"; break; }
                continue;
            }
            if (n < 0 && receive_timed_out()) {
                if (node_closed(fd)) { how = "cut"; break; }
                /* libsrt itself declares a peer broken only after 16 response timeouts (about 5 s whatever
                   SRTO_PEERIDLETIMEO says); a live encoder never stops sending media, so silence this long is death. */
                if (now_ms() - last > peer_idle_ms) { how = "dead"; break; }
                continue;
            }
            how = now_ms() - last < CLEAN_BREAK_MS ? "clean" : "dead";
            break;
        }
    }
    srt_close(s);
    char line[96];
    snprintf(line, sizeof line, "{\"type\":\"end\",\"id\":%d,\"how\":\"%s\"}", s, how);
    emit(line);
    if (fd >= 0) close(fd);
    return NULL;
}

static SRTSOCKET open_listener(const char *host, int port, int latency_ms) {
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t len;
    struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)port);
        len = sizeof *a4;
    } else if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)port);
        len = sizeof *a6;
    } else {
        return SRT_INVALID_SOCK;
    }
    SRTSOCKET s = srt_create_socket();
    int yes = 1, no = 0;
    srt_setsockflag(s, SRTO_LATENCY, &latency_ms, sizeof latency_ms);
    srt_setsockflag(s, SRTO_PEERIDLETIMEO, &peer_idle_ms, sizeof peer_idle_ms);
    srt_setsockflag(s, SRTO_ENFORCEDENCRYPTION, &yes, sizeof yes);
    if (ss.ss_family == AF_INET6) srt_setsockflag(s, SRTO_IPV6ONLY, &no, sizeof no);
    if (srt_bind(s, (struct sockaddr *)&ss, (int)len) != 0 || srt_listen_callback(s, on_caller, NULL) != 0 || srt_listen(s, 16) != 0) {
        srt_close(s);
        return SRT_INVALID_SOCK;
    }
    return s;
}

static int bound_port(SRTSOCKET s) {
    struct sockaddr_storage ss;
    int len = sizeof ss;
    srt_getsockname(s, (struct sockaddr *)&ss, &len);
    return ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port : ((struct sockaddr_in *)&ss)->sin_port);
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: srt-gate <host> <port> <unix-socket> <latency-ms> <peer-idle-ms>\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    unix_path = argv[3];
    peer_idle_ms = atoi(argv[5]);
    srt_startup();
    srt_setloglevel(2 /* LOG_CRIT: libsrt's own lines would mix with ours */);
    SRTSOCKET listener = open_listener(argv[1], atoi(argv[2]), atoi(argv[4]));
    if (listener == SRT_INVALID_SOCK) {
        char line[400], msg[300];
        json_escape(srt_getlasterror_str(), msg, sizeof msg);
        snprintf(line, sizeof line, "{\"type\":\"error\",\"message\":\"cannot listen on %s:%s: %s\"}", argv[1], argv[2], msg);
        emit(line);
        return 1;
    }
    pthread_t reader;
    pthread_create(&reader, NULL, read_answers, NULL);
    char line[64];
    snprintf(line, sizeof line, "{\"type\":\"listening\",\"port\":%d}", bound_port(listener));
    emit(line);

    for (;;) {
        struct sockaddr_storage peer;
        int len = sizeof peer;
        SRTSOCKET s = srt_accept(listener, (struct sockaddr *)&peer, &len);
        if (s == SRT_INVALID_SOCK) break;
        /* A short receive timeout lets the pump notice Node closing its side while the caller is quiet. */
        int timeout_ms = 200;
        srt_setsockflag(s, SRTO_RCVTIMEO, &timeout_ms, sizeof timeout_ms);
        pthread_t t;
        if (pthread_create(&t, NULL, pump, (void *)(long)s) == 0) pthread_detach(t);
        else srt_close(s);
    }
    srt_cleanup();
    return 0;
}
