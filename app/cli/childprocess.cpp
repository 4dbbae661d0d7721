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
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace ckpt::cli {

namespace {
volatile std::sig_atomic_t g_stopSignal = 0;
extern "C" void noteStopSignal(int sig)
{
    g_stopSignal = sig;
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
}

StopSignals::~StopSignals()
{
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
    pid_t pid = 0;
    const int rc = ::posix_spawnp(&pid, cargv[0], &actions, nullptr, cargv.data(), cenv.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
        r.startError = std::strerror(rc);
        return r;
    }
    r.started = true;
    if (g_stopSignal != 0) // arrived while it was being started: passed on as if during the wait
        ::kill(pid, g_stopSignal);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno == EINTR && g_stopSignal != 0)
            ::kill(pid, g_stopSignal);
        else if (errno != EINTR) {
            r.startError = std::string("waitpid: ") + std::strerror(errno);
            return r;
        }
    }
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
