/* The system calls the referee makes in a turn of an instant bot, timed alone: CPU time of
 * this thread per call, best of 5 rounds of 50,000 (so a loaded machine moves the figures
 * less). Run as root (it makes a pids cgroup, cgroup v1, and removes it):
 *
 *   gcc -O2 benches/turn_syscalls.c -o /tmp/turn_syscalls && taskset -c 1 /tmp/turn_syscalls
 *
 * A turn on the fair clock reads three of the files (the bot's cgroup task count, the bot's
 * schedstat, the referee thread's schedstat) and the bot's CPU clock twice, besides the
 * write, poll and read of the exchange itself (see docs/performance.md), and /proc/stat for the
 * steal of the bot's CPUs (at the turn's start, and at its end where the answer was not quick). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double cpu_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

#define N 50000
#define TIME(name, stmt)                                                                   \
    do {                                                                                   \
        double best = 1e18;                                                                \
        for (int r = 0; r < 5; r++) {                                                      \
            double t = cpu_ns();                                                           \
            for (int i = 0; i < N; i++) { stmt; }                                          \
            double d = (cpu_ns() - t) / N;                                                 \
            if (d < best) best = d;                                                        \
        }                                                                                  \
        printf("%-44s %6.0f ns\n", name, best);                                            \
    } while (0)

int main(void) {
    static char stat[1 << 16];
    char buf[128], path[64];
    const char *group = "/sys/fs/cgroup/pids/turn-syscalls-bench";
    mkdir(group, 0755);
    pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    snprintf(path, sizeof path, "/proc/%d/schedstat", child);
    int bot = open(path, O_RDONLY);
    int own = open("/proc/thread-self/schedstat", O_RDONLY);
    snprintf(buf, sizeof buf, "%s/pids.current", group);
    int tasks = open(buf, O_RDONLY);
    int procstat = open("/proc/stat", O_RDONLY);
    int pipefd[2];
    pipe2(pipefd, O_NONBLOCK);
    clockid_t clock = ((~child) << 3) | 2; /* the child's process CPU clock */
    struct timespec ts;
    if (tasks < 0) printf("(no pids cgroup here: its line reads a closed file)\n");
    TIME("pread /proc/TID/schedstat (the bot's)", pread(bot, buf, 96, 0));
    TIME("pread /proc/thread-self/schedstat (own)", pread(own, buf, 96, 0));
    TIME("pread pids.current (the bot's cgroup)", pread(tasks, buf, 96, 0));
    TIME("pread /proc/stat (the CPUs' steal)", pread(procstat, stat, sizeof stat, 0));
    TIME("clock_gettime (the bot's CPU clock)", clock_gettime(clock, &ts));
    TIME("read of an empty pipe (EAGAIN)", read(pipefd[0], buf, 96));
    TIME("getppid (a bare system call)", getppid());
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    rmdir(group);
    return 0;
}
