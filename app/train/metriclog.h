// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <utility>
#include <vector>

namespace ckpt::train {

/** burn-train's metric files: DIR/{train,valid}/epoch-N/{Loss,Learning_Rate}.log, "value,count" lines. */
class MetricLogs {
public:
    explicit MetricLogs(std::filesystem::path dir)
        : m_dir(std::move(dir))
    {
    }
    ~MetricLogs() { close(); }

    /**
     * A continuation may write into a directory that already holds lines past the resumed step (an
     * earlier, longer run): keep the first \a linesDone lines of the current epoch, drop later epochs.
     */
    void prepareContinuation(uint64_t epoch, uint64_t linesDone);

    void trainLine(uint64_t epoch, double loss, double lr);

    void validLines(uint64_t epoch, const std::vector<double>& losses);

    void flush();

private:
    void close();
    static void keepLines(const std::filesystem::path& file, uint64_t lines);

    std::filesystem::path m_dir;
    FILE* m_loss = nullptr;
    FILE* m_lr = nullptr;
    uint64_t m_openEpoch = 0;
    uint64_t m_continuedEpoch = 0;
};

} // namespace ckpt::train
