// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/childprocess.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <pthread.h>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace ckpt::cli {

namespace {
volatile std::sig_atomic_t g_stopSignal = 0;
bool g_stopSignalsInstalled = false;
extern "C" void noteStopSignal(int sig)
{
    g_stopSignal = sig;
}

/**
 * Waits for \a pid with the signals of \a waitSet blocked and taken by sigwaitinfo: a stop signal is
 * passed on whenever it arrives. A handler and a blocking waitpid could not promise that: a signal
 * handled between the check for it and the waitpid call would leave ckpt waiting for a child that
 * was never told to stop.
 */
void waitForChild(pid_t pid, const sigset_t& waitSet, int& status, std::string& error)
{
    for (;;) {
        const pid_t done = ::waitpid(pid, &status, WNOHANG);
        if (done == pid)
            return;
        if (done < 0 && errno != EINTR) {
            error = std::string("waitpid: ") + std::strerror(errno);
            return;
        }
        siginfo_t info{};
        const int sig = ::sigwaitinfo(&waitSet, &info);
        if (sig > 0 && sig != SIGCHLD) {
            g_stopSignal = sig;
            ::kill(pid, sig);
        }
    }
}
} // namespace

int stopSignalReceived()
{
    return g_stopSignal;
}

StopSignals::StopSignals()
{
    struct sigaction sa {};
    sa.sa_handler = noteStopSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; // no SA_RESTART: waitpid returns EINTR and the signal is forwarded
    for (size_t i = 0; i < kSignals.size(); ++i)
        ::sigaction(kSignals[i], &sa, &m_old[i]);
    g_stopSignalsInstalled = true;
}

StopSignals::~StopSignals()
{
    g_stopSignalsInstalled = false;
    for (size_t i = 0; i < kSignals.size(); ++i)
        ::sigaction(kSignals[i], &m_old[i], nullptr);
}

void dieOfSignal(int sig)
{
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    std::_Exit(128 + sig); // not reached: the default action of the stop signals ends the process
}

ChildResult runChild(const std::vector<std::string>& argv, const std::string& logPath, const std::vector<std::string>& extraEnv,
    const std::string& workingDirectory)
{
    ChildResult r;
    // ckpt's environment with the profile's NAME=VALUE entries over it.
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) {
        const std::string entry = *e;
        const std::string name = entry.substr(0, entry.find('=') + 1);
        const bool overridden = std::any_of(extraEnv.begin(), extraEnv.end(), [&](const std::string& x) { return x.starts_with(name); });
        if (!overridden)
            env.push_back(entry);
    }
    env.insert(env.end(), extraEnv.begin(), extraEnv.end());
    std::vector<char*> cenv;
    cenv.reserve(env.size() + 1);
    for (auto& e : env)
        cenv.push_back(e.data());
    cenv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (!workingDirectory.empty())
        posix_spawn_file_actions_addchdir_np(&actions, workingDirectory.c_str());
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    std::vector<char*> cargv;
    cargv.reserve(argv.size() + 1);
    for (const auto& a : argv)
        cargv.push_back(const_cast<char*>(a.c_str()));
    cargv.push_back(nullptr);
    // From before the spawn until the child is reaped, SIGCHLD (and, under StopSignals, the stop signals)
    // stay pending for waitForChild; the child starts with ckpt's own mask. SIGCHLD must not be ignored
    // meanwhile (an inherited SIG_IGN would reap the child unseen and never wake the wait).
    sigset_t waitSet, oldMask;
    sigemptyset(&waitSet);
    sigaddset(&waitSet, SIGCHLD);
    if (g_stopSignalsInstalled)
        for (const int sig : StopSignals::kSignals)
            sigaddset(&waitSet, sig);
    struct sigaction childDefault{}, oldChild{};
    childDefault.sa_handler = SIG_DFL;
    sigemptyset(&childDefault.sa_mask);
    ::sigaction(SIGCHLD, &childDefault, &oldChild);
    ::pthread_sigmask(SIG_BLOCK, &waitSet, &oldMask);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setsigmask(&attr, &oldMask);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    pid_t pid = 0;
    const int rc = ::posix_spawnp(&pid, cargv[0], &actions, &attr, cargv.data(), cenv.data());
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    int status = 0;
    if (rc != 0) {
        r.startError = std::strerror(rc);
    } else {
        r.started = true;
        if (g_stopSignal != 0) // arrived before the spawn: passed on as if during the wait
            ::kill(pid, g_stopSignal);
        waitForChild(pid, waitSet, status, r.startError);
    }
    ::pthread_sigmask(SIG_SETMASK, &oldMask, nullptr);
    ::sigaction(SIGCHLD, &oldChild, nullptr);
    if (!r.started || !r.startError.empty())
        return r;
    if (WIFEXITED(status))
        r.exitCode = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        r.signal = WTERMSIG(status);
    return r;
}

ChildResult captureChild(const std::vector<std::string>& argv, std::string& output, size_t maxBytes)
{
    const char* tmp = std::getenv("TMPDIR");
    std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/ckpt-child-XXXXXX";
    const int fd = ::mkstemp(path.data());
    if (fd < 0) {
        ChildResult r;
        r.startError = "cannot create a temporary file " + path + ": " + std::strerror(errno);
        return r;
    }
    ::close(fd);
    ChildResult r = runChild(argv, path);
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    output = ss.str();
    if (output.size() > maxBytes)
        output.resize(maxBytes);
    ::unlink(path.c_str());
    return r;
}

std::string readChildLog(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string lastLines(const std::string& text, size_t maxLines)
{
    const size_t last = text.find_last_not_of("\r\n");
    if (last == std::string::npos || maxLines == 0)
        return {};
    size_t begin = last + 1, lines = 0;
    while (begin > 0) {
        if (text[begin - 1] == '\n' && ++lines == maxLines)
            break;
        --begin;
    }
    return text.substr(begin, last + 1 - begin);
}

} // namespace ckpt::cli
