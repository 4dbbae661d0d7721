// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/bytes.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <optional>
#include <random>
#include <string_view>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ckpt {
namespace {

/**
 * A mapping the SIGBUS handler may repair. The table is fixed and lock-free because the handler runs
 * in whichever thread touched the page, possibly inside malloc: it can neither lock nor allocate.
 */
struct GuardSlot {
    std::atomic<bool> taken{false};
    std::atomic<uintptr_t> begin{0}; ///< 0 while the slot is not (yet) a live mapping
    std::atomic<uintptr_t> end{0};   ///< end of the mapping's last page
    std::atomic<bool> zeroed{false}; ///< the handler replaced pages past the file's end with zeros
};
constexpr size_t kGuardSlots = 4096;
GuardSlot g_guardSlots[kGuardSlots];
std::atomic<bool> g_guardInstalled{false};
uintptr_t g_pageSize = 4096;
struct sigaction g_previousBusAction {};

void onBusError(int sig, siginfo_t* info, void* /*context*/)
{
    const auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
    if (info->si_code > 0) { // a fault of this thread's own access, not a kill(2)
        for (GuardSlot& slot : g_guardSlots) {
            const uintptr_t begin = slot.begin.load(std::memory_order_acquire);
            const uintptr_t end = slot.end.load(std::memory_order_acquire);
            if (begin == 0 || addr < begin || addr >= end)
                continue;
            // The file ends before this page, so every later page of the mapping would fault as well:
            // zeros for all of them in one call. The faulting read then runs again and completes.
            const uintptr_t page = addr & ~(g_pageSize - 1);
            // NOLINTNEXTLINE(performance-no-int-to-ptr): the page address comes from the fault's siginfo
            void* zeros = ::mmap(reinterpret_cast<void*>(page), end - page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
            if (zeros != MAP_FAILED) {
                slot.zeroed.store(true, std::memory_order_release);
                return;
            }
            break;
        }
    }
    // Not one of our mappings: whatever would have happened without this handler. It steps aside for
    // good (a handler that chains by calling the previous one directly loops when that one, like
    // QTest's, re-raises while leaving a replacement in place), and the signal comes again: a fault by
    // running the access again on return, a kill(2) by raising it (pending until this handler returns).
    ::sigaction(SIGBUS, &g_previousBusAction, nullptr);
    if (info->si_code <= 0)
        ::raise(sig);
}

GuardSlot* guardMapping(void* addr, size_t len)
{
    const auto begin = reinterpret_cast<uintptr_t>(addr);
    for (GuardSlot& slot : g_guardSlots) {
        bool free = false;
        if (!slot.taken.compare_exchange_strong(free, true, std::memory_order_acq_rel))
            continue;
        slot.zeroed.store(false, std::memory_order_relaxed);
        slot.end.store(begin + ((len + g_pageSize - 1) & ~(g_pageSize - 1)), std::memory_order_relaxed);
        slot.begin.store(begin, std::memory_order_release);
        return &slot;
    }
    return nullptr;
}

class MappedBytes final : public Bytes {
public:
    MappedBytes(void* addr, size_t len, GuardSlot* guard)
        : m_addr(addr)
        , m_len(len)
        , m_guard(guard)
    {
    }
    ~MappedBytes() override
    {
        if (m_guard) // a bus error from here on is no longer ours to repair
            m_guard->begin.store(0, std::memory_order_release);
        if (m_addr && m_len) {
            // Tearing down the page tables of a large resident mapping takes tens of milliseconds (75 ms
            // for 1 GiB), and munmap holds the process's mmap lock throughout, so every other thread that
            // maps or unmaps memory (a malloc of a large buffer, the GUI's painting) waits for it.
            // Dropping the pages a chunk at a time first takes that lock briefly, once per chunk; the
            // munmap that follows has nothing left to tear down.
            constexpr size_t Chunk = size_t(64) << 20;
            auto* p = static_cast<uint8_t*>(m_addr);
            for (size_t off = 0; m_len > Chunk && off < m_len; off += Chunk)
                ::madvise(p + off, std::min(Chunk, m_len - off), MADV_DONTNEED);
            ::munmap(m_addr, m_len);
        }
        if (m_guard)
            m_guard->taken.store(false, std::memory_order_release);
    }
    std::span<const uint8_t> span() const override { return {static_cast<const uint8_t*>(m_addr), m_len}; }
    bool truncatedWhileMapped() const override { return m_guard && m_guard->zeroed.load(std::memory_order_acquire); }

private:
    void* m_addr;
    size_t m_len;
    GuardSlot* m_guard;
};

Error osError(const std::string& path, const std::string& action)
{
    Error e;
    e.code = ErrorCode::Io;
    e.file = path;
    e.what = "cannot " + action + ": " + std::strerror(errno);
    return e;
}

/** Everything \a fd still has to give, into memory (pipes, devices, standard input). */
Result<BytesPtr> readAll(int fd, const std::string& name, const char* action)
{
    std::vector<uint8_t> buf;
    uint8_t chunk[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return std::unexpected(osError(name, action));
        }
        if (n == 0)
            break;
        buf.insert(buf.end(), chunk, chunk + n);
    }
    return makeBytes(std::move(buf));
}

struct Fd {
    int fd = -1;
    ~Fd()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

} // namespace

Result<BytesPtr> mapFile(const std::string& path)
{
    Fd f;
    f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (f.fd < 0)
        return std::unexpected(osError(path, "open"));
    struct stat st {};
    if (::fstat(f.fd, &st) != 0)
        return std::unexpected(osError(path, "stat"));
    if (S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        return std::unexpected(osError(path, "read a directory as a file"));
    }
    if (!S_ISREG(st.st_mode)) // pipes and devices cannot be mapped: read them instead
        return readAll(f.fd, path, "read");
    const auto len = static_cast<size_t>(st.st_size);
    if (len == 0)
        return makeBytes(std::vector<uint8_t>{});
    void* addr = ::mmap(nullptr, len, PROT_READ, MAP_PRIVATE, f.fd, 0);
    if (addr == MAP_FAILED)
        return std::unexpected(osError(path, "map"));
    GuardSlot* guard = nullptr;
    if (g_guardInstalled.load(std::memory_order_acquire)) {
        guard = guardMapping(addr, len);
        if (!guard) { // every slot holds a live mapping: a copy cannot be cut short under us
            ::munmap(addr, len);
            return readAll(f.fd, path, "read");
        }
    }
    return std::make_shared<MappedBytes>(addr, len, guard);
}

bool guardMappedFiles()
{
    static const bool installed = [] {
        g_pageSize = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
        struct sigaction action {};
        action.sa_sigaction = onBusError;
        action.sa_flags = SA_SIGINFO;
        sigemptyset(&action.sa_mask);
        if (::sigaction(SIGBUS, &action, &g_previousBusAction) != 0)
            return false;
        g_guardInstalled.store(true, std::memory_order_release);
        return true;
    }();
    return installed;
}

Result<BytesPtr> readStdin()
{
    return readAll(0, "-", "read standard input");
}

Result<void> writeFileAtomic(const std::string& path, std::span<const uint8_t> data)
{
    return writeFileAtomic(path, [&](const auto& sink) { return sink(data); });
}

namespace {

// The host part of a temporary's name: only letters, digits and '-', at most 32 of them, so the
// name stays a plain file name and the sweep below recognises its own host's files.
const std::string& hostTag()
{
    static const std::string tag = [] {
        char name[256] = {};
        if (::gethostname(name, sizeof name - 1) != 0 || !name[0])
            return std::string("host");
        std::string t;
        for (const char* c = name; *c && t.size() < 32; ++c)
            t += (std::isalnum(static_cast<unsigned char>(*c)) || *c == '-') ? *c : '_';
        return t;
    }();
    return tag;
}

std::string temporaryPrefix(const std::filesystem::path& target)
{
    // (Appended piece by piece: GCC 12 warns falsely (-Wrestrict) about "." + std::string.)
    std::string prefix(1, '.');
    prefix += target.filename().string();
    prefix += ".ckpt-";
    prefix += hostTag();
    prefix += '-';
    return prefix;
}

// A name beside the target that no other writer uses: host, pid, a process-wide counter and random
// bits, so a stale temporary left by a killed process whose pid was reused never blocks a save.
std::filesystem::path temporaryName(const std::filesystem::path& dir, const std::filesystem::path& target)
{
    static std::atomic<unsigned> counter{0};
    static thread_local std::mt19937_64 random{std::random_device{}()};
    char suffix[17];
    std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(random()));
    return dir
        / (temporaryPrefix(target) + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" + suffix + ".tmp");
}

// The pid in a temporary's name if \a name is one of ours for \a prefix: "<prefix><pid>-<n>-<16 hex>.tmp".
std::optional<pid_t> temporaryOwner(std::string_view name, std::string_view prefix)
{
    if (!name.starts_with(prefix) || !name.ends_with(".tmp"))
        return std::nullopt;
    std::string_view rest = name.substr(prefix.size(), name.size() - prefix.size() - 4);
    const auto dash = rest.find('-');
    const auto dash2 = dash == std::string_view::npos ? dash : rest.find('-', dash + 1);
    if (dash == 0 || dash2 == std::string_view::npos || rest.size() - dash2 - 1 != 16)
        return std::nullopt;
    pid_t pid = 0;
    for (char c : rest.substr(0, dash)) {
        if (c < '0' || c > '9' || pid > 1'000'000'000)
            return std::nullopt;
        pid = pid * 10 + (c - '0');
    }
    return pid;
}

// Removes the temporaries for \a target that writers on this host left when they were killed
// between naming their complete file and renaming it (a window of microseconds with O_TMPFILE; the
// whole write without it). Only files whose writing process no longer exists are touched, so a save
// running at the same time in another process keeps its file. (A writer in another pid namespace
// sharing this host name and directory would look dead to us; its rename would then fail with a
// clear error and its target stay as it was.)
void sweepStaleTemporaries(const std::filesystem::path& dir, const std::filesystem::path& target)
{
    DIR* d = ::opendir(dir.c_str());
    if (!d)
        return;
    const std::string prefix = temporaryPrefix(target);
    while (const dirent* e = ::readdir(d)) {
        const auto owner = temporaryOwner(e->d_name, prefix);
        if (!owner || *owner == ::getpid())
            continue;
        if (::kill(*owner, 0) != 0 && errno == ESRCH)
            ::unlinkat(::dirfd(d), e->d_name, 0);
    }
    ::closedir(d);
}

constexpr int kNameAttempts = 16;

} // namespace

Result<void> writeFileAtomic(const std::string& path,
    const std::function<Result<void>(const std::function<Result<void>(std::span<const uint8_t>)>& sink)>& produce)
{
    namespace fs = std::filesystem;
    const fs::path target(path);
    fs::path dir = target.parent_path();
    if (dir.empty())
        dir = ".";

    // Write into an unnamed file (O_TMPFILE) where the file system has them: a process killed while
    // writing leaves nothing behind, and the kernel frees the blocks. The file gets a name only once
    // it is complete and on disk, just before it replaces the target. Elsewhere a named temporary.
    Fd f;
    fs::path tmp;
    // (Naming it goes through /proc/self/fd; without /proc the named temporary is the way.)
    static const bool procFds = ::access("/proc/self/fd", X_OK) == 0;
    if (procFds)
        f.fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    const bool unnamed = f.fd >= 0;
    for (int attempt = 0; !unnamed && f.fd < 0 && attempt < kNameAttempts; ++attempt) {
        tmp = temporaryName(dir, target);
        f.fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (f.fd < 0 && errno != EEXIST)
            break;
    }
    if (f.fd < 0)
        return std::unexpected(osError(unnamed || tmp.empty() ? dir.string() : tmp.string(), "create a temporary file"));
    auto cleanup = [&] {
        ::close(f.fd);
        f.fd = -1;
        if (!tmp.empty())
            ::unlink(tmp.c_str());
    };

    auto sink = [&](std::span<const uint8_t> chunk) -> Result<void> {
        const uint8_t* p = chunk.data();
        size_t left = chunk.size();
        while (left) {
            ssize_t n = ::write(f.fd, p, left);
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                return std::unexpected(osError(path, "write"));
            }
            p += n;
            left -= static_cast<size_t>(n);
        }
        return {};
    };
    if (auto r = produce(sink); !r) {
        cleanup();
        return std::unexpected(std::move(r.error()).withFile(path));
    }
    // Keep the permissions of a file we replace, so a re-save does not widen or narrow access.
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0)
        ::fchmod(f.fd, st.st_mode & 07777);
    if (::fsync(f.fd) != 0) {
        auto e = osError(path, "flush to disk");
        cleanup();
        return std::unexpected(e);
    }
    if (unnamed) {
        // linkat through /proc/self/fd needs no privilege (AT_EMPTY_PATH would need CAP_DAC_READ_SEARCH).
        const std::string self = "/proc/self/fd/" + std::to_string(f.fd);
        bool linked = false;
        for (int attempt = 0; !linked && attempt < kNameAttempts; ++attempt) {
            tmp = temporaryName(dir, target);
            linked = ::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, tmp.c_str(), AT_SYMLINK_FOLLOW) == 0;
            if (!linked && errno != EEXIST)
                break;
        }
        if (!linked) {
            auto e = osError(path, "name the written temporary file");
            tmp.clear();
            cleanup();
            return std::unexpected(e);
        }
    }
    ::close(f.fd);
    f.fd = -1;
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        auto e = osError(path, "replace the file");
        ::unlink(tmp.c_str());
        return std::unexpected(e);
    }
    Fd d;
    d.fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d.fd >= 0)
        ::fsync(d.fd);
    sweepStaleTemporaries(dir, target);
    return {};
}

bool looksLikeText(std::span<const uint8_t> head)
{
    constexpr size_t kHead = 1024; // the first KiB, as the sniffers read it
    if (head.empty())
        return false;
    for (const uint8_t c : head.first(std::min<size_t>(head.size(), kHead)))
        if ((c < 0x20 && c != ' ' && c != '\n' && c != '\r' && c != '\t') || c == 0x7f)
            return false;
    return true;
}

} // namespace ckpt
