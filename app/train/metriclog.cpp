// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/train/metriclog.h"

#include "app/train/format.h"
#include "core/io/bytes.h"

#include <fstream>
#include <span>
#include <string>
#include <string_view>

namespace ckpt::train {

namespace fs = std::filesystem;

void MetricLogs::prepareContinuation(uint64_t epoch, uint64_t linesDone)
{
    std::error_code ec;
    for (const char* split : {"train", "valid"}) {
        const fs::path base = m_dir / split;
        if (!fs::is_directory(base, ec))
            continue;
        for (const auto& entry : fs::directory_iterator(base, ec)) {
            const std::string name = entry.path().filename().string();
            if (!name.starts_with("epoch-"))
                continue;
            uint64_t n = 0;
            try {
                n = std::stoull(name.substr(6));
            } catch (...) {
                continue;
            }
            // valid/epoch-E is written when epoch E ends, which has not happened yet.
            if (n > epoch || (n == epoch && std::string_view(split) == "valid"))
                fs::remove_all(entry.path(), ec);
        }
    }
    for (const char* metric : {"Loss.log", "Learning_Rate.log"})
        keepLines(m_dir / "train" / ("epoch-" + std::to_string(epoch)) / metric, linesDone);
    m_continuedEpoch = epoch;
}

void MetricLogs::trainLine(uint64_t epoch, double loss, double lr)
{
    if (epoch != m_openEpoch) {
        close();
        const fs::path d = m_dir / "train" / ("epoch-" + std::to_string(epoch));
        fs::create_directories(d);
        // Burn truncates a metric file when an epoch starts; a continued epoch appends.
        const char* mode = epoch == m_continuedEpoch ? "ab" : "wb";
        m_loss = std::fopen((d / "Loss.log").c_str(), mode);
        m_lr = std::fopen((d / "Learning_Rate.log").c_str(), mode);
        m_openEpoch = epoch;
    }
    if (m_loss)
        std::fprintf(m_loss, "%s,1\n", rustDisplayF64(loss).c_str());
    if (m_lr)
        std::fprintf(m_lr, "%s,1\n", rustDisplayF64(lr).c_str());
}

void MetricLogs::validLines(uint64_t epoch, const std::vector<double>& losses)
{
    const fs::path d = m_dir / "valid" / ("epoch-" + std::to_string(epoch));
    fs::create_directories(d);
    if (FILE* f = std::fopen((d / "Loss.log").c_str(), "wb")) {
        for (double l : losses)
            std::fprintf(f, "%s,1\n", rustDisplayF64(l).c_str());
        std::fclose(f);
    }
}

void MetricLogs::flush()
{
    if (m_loss)
        std::fflush(m_loss);
    if (m_lr)
        std::fflush(m_lr);
}

void MetricLogs::close()
{
    if (m_loss)
        std::fclose(m_loss);
    if (m_lr)
        std::fclose(m_lr);
    m_loss = m_lr = nullptr;
    m_openEpoch = 0;
}

void MetricLogs::keepLines(const fs::path& file, uint64_t lines)
{
    std::ifstream in(file, std::ios::binary);
    if (!in)
        return;
    std::string kept, line;
    uint64_t n = 0;
    while (n < lines && std::getline(in, line)) {
        kept += line + "\n";
        ++n;
    }
    in.close();
    // Atomically, like every other file of the run: a trainer killed here keeps the old log.
    const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(kept.data()), kept.size());
    if (auto r = writeFileAtomic(file.string(), bytes); !r)
        std::fprintf(stderr, "ckpt-train: %s\n", r.error().message().c_str());
}

} // namespace ckpt::train
