// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/value/tape.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ckpt {

/**
 * Parent/row tables of a tape, so a tree model answers parent() and index() in O(1) and a node's
 * path is one walk up. Built off the GUI thread together with the record.
 */
struct TapeIndex {
    std::vector<uint32_t> parent;     ///< value node -> parent container (UINT32_MAX for the root)
    std::vector<uint32_t> row;        ///< value node -> row under its parent
    std::vector<uint32_t> firstChild; ///< container -> offset into children (UINT32_MAX for scalars)
    std::vector<uint32_t> children;   ///< value nodes of containers, contiguous per container
    std::vector<uint32_t> childCountOf; ///< container -> number of value children
    std::vector<uint32_t> keyOf;      ///< value node -> its key node in a map (UINT32_MAX otherwise)
    std::vector<int32_t> tensorAt;    ///< node -> index of the tensor whose TensorData map is there, -1
    uint32_t childCount(uint32_t node) const { return childCountOf[node]; }
    uint32_t child(uint32_t node, uint32_t r) const { return children[firstChild[node] + r]; }
    /** \a tensorNodes: the TensorData map of tensor i is at tensorNodes[i] (Record::tensors' nodes). */
    static TapeIndex build(const Tape& tape, std::span<const uint32_t> tensorNodes = {});
    /** The ckpt path of \a node (item[0].fc1.weight), from the parent chain. */
    std::string pathOf(const Tape& tape, uint32_t node) const;
};

} // namespace ckpt
