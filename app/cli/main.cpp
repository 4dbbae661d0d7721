// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include <cstdio>
int main() { std::puts("ckpt"); return 0; }
