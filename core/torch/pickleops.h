// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The pickle opcodes of protocols 0-5 (CPython's Lib/pickletools.py), grouped by what the machine in
// pickle.cpp does with them, and the ones it refuses with the reason.

#include <cstdint>

namespace ckpt::torch {

// protocol 0 and 1
constexpr uint8_t kMark = '(', kStop = '.', kPop = '0', kPopMark = '1', kDup = '2', kFloat = 'F', kInt = 'I', kBinInt = 'J', kBinInt1 = 'K', kLong = 'L',
                  kBinInt2 = 'M', kNone = 'N', kPersId = 'P', kBinPersId = 'Q', kReduce = 'R', kString = 'S', kBinString = 'T', kShortBinString = 'U',
                  kUnicode = 'V', kBinUnicode = 'X', kAppend = 'a', kBuild = 'b', kGlobal = 'c', kDict = 'd', kEmptyDict = '}', kAppends = 'e', kGet = 'g',
                  kBinGet = 'h', kInst = 'i', kLongBinGet = 'j', kList = 'l', kEmptyList = ']', kObj = 'o', kPut = 'p', kBinPut = 'q', kLongBinPut = 'r',
                  kSetItem = 's', kTuple = 't', kEmptyTuple = ')', kSetItems = 'u', kBinFloat = 'G';
// protocol 2
constexpr uint8_t kProto = 0x80, kNewObj = 0x81, kExt1 = 0x82, kExt2 = 0x83, kExt4 = 0x84, kTuple1 = 0x85, kTuple2 = 0x86, kTuple3 = 0x87, kNewTrue = 0x88,
                  kNewFalse = 0x89, kLong1 = 0x8a, kLong4 = 0x8b;
// protocol 3
constexpr uint8_t kBinBytes = 'B', kShortBinBytes = 'C';
// protocol 4
constexpr uint8_t kShortBinUnicode = 0x8c, kBinUnicode8 = 0x8d, kBinBytes8 = 0x8e, kEmptySet = 0x8f, kAddItems = 0x90, kFrozenSet = 0x91, kNewObjEx = 0x92,
                  kStackGlobal = 0x93, kMemoize = 0x94, kFrame = 0x95;
// protocol 5
constexpr uint8_t kByteArray8 = 0x96, kNextBuffer = 0x97, kReadonlyBuffer = 0x98;

enum class OpClass : uint8_t { Constant, Text, Container, Memo, Call, Frame, Refused, Unknown };

constexpr OpClass classify(uint8_t op)
{
    switch (op) {
    case kNone:
    case kNewTrue:
    case kNewFalse:
    case kInt:
    case kBinInt:
    case kBinInt1:
    case kBinInt2:
    case kLong:
    case kLong1:
    case kLong4:
    case kFloat:
    case kBinFloat: return OpClass::Constant;
    case kString:
    case kBinString:
    case kShortBinString:
    case kUnicode:
    case kBinUnicode:
    case kShortBinUnicode:
    case kBinUnicode8:
    case kBinBytes:
    case kShortBinBytes:
    case kBinBytes8:
    case kByteArray8: return OpClass::Text;
    case kMark:
    case kPop:
    case kPopMark:
    case kDup:
    case kEmptyList:
    case kEmptyTuple:
    case kEmptyDict:
    case kEmptySet:
    case kTuple:
    case kTuple1:
    case kTuple2:
    case kTuple3:
    case kList:
    case kDict:
    case kFrozenSet:
    case kAppend:
    case kAppends:
    case kSetItem:
    case kSetItems:
    case kAddItems: return OpClass::Container;
    case kGet:
    case kBinGet:
    case kLongBinGet:
    case kPut:
    case kBinPut:
    case kLongBinPut:
    case kMemoize: return OpClass::Memo;
    case kGlobal:
    case kStackGlobal:
    case kReduce:
    case kNewObj:
    case kBuild:
    case kBinPersId:
    case kPersId: return OpClass::Call;
    case kProto:
    case kFrame: return OpClass::Frame;
    case kInst:
    case kObj:
    case kNewObjEx:
    case kExt1:
    case kExt2:
    case kExt4:
    case kNextBuffer:
    case kReadonlyBuffer: return OpClass::Refused;
    default: return OpClass::Unknown;
    }
}

/** pickletools' name of an opcode this machine knows or refuses. */
constexpr const char* opName(uint8_t op)
{
    switch (op) {
    case kInst: return "INST";
    case kObj: return "OBJ";
    case kNewObjEx: return "NEWOBJ_EX";
    case kExt1: return "EXT1";
    case kExt2: return "EXT2";
    case kExt4: return "EXT4";
    case kNextBuffer: return "NEXT_BUFFER";
    case kReadonlyBuffer: return "READONLY_BUFFER";
    case kAppend: return "APPEND";
    case kAppends: return "APPENDS";
    case kSetItem: return "SETITEM";
    case kSetItems: return "SETITEMS";
    case kAddItems: return "ADDITEMS";
    default: return "?";
    }
}

/** Why a refused opcode is refused. */
constexpr const char* refusedWhy(uint8_t op)
{
    switch (op) {
    case kInst:
    case kObj:
    case kNewObjEx: return "it instantiates an arbitrary class";
    case kExt1:
    case kExt2:
    case kExt4: return "it names a global through the copyreg extension registry";
    default: return "out-of-band buffers are not part of a file";
    }
}

} // namespace ckpt::torch
