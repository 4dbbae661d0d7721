# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
# bash completion for ckpt. Commands and their flags are read from `ckpt --help` itself, so the
# completion can never disagree with the installed binary (the man page comes from the same text).

_ckpt_help_cache=

_ckpt()
{
    local cur prev words cword
    _init_completion || return

    if [[ -z $_ckpt_help_cache ]]; then
        _ckpt_help_cache=$("${words[0]}" --help 2>/dev/null)
    fi
    local commands
    commands=$(printf '%s\n' "$_ckpt_help_cache" | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{on=0}')

    if ((cword == 1)); then
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi

    case $prev in
        --recorder)
            COMPREPLY=($(compgen -W "NamedMpk NamedMpkGz PrettyJson JsonGz Bin BinGz" -- "$cur"))
            return ;;
        --precision)
            COMPREPLY=($(compgen -W "full half double" -- "$cur"))
            return ;;
        --until)
            COMPREPLY=($(compgen -W "nan inf nonfinite max_abs> update_ratio>" -- "$cur"))
            return ;;
        --depth | --limit | --tolerance | --filter | --set | --spike-threshold)
            return ;;
    esac

    if [[ $cur == -* ]]; then
        # The flags of this command: every --flag on its lines of the help text, plus the global ones.
        local command=${words[1]} flags
        flags=$(printf '%s\n' "$_ckpt_help_cache" |
            awk -v c="$command" '$1 == c {on=1} on && /^  [a-z]/ && $1 != c {on=0} on' |
            grep -o -- '--[a-z-]*' | sort -u)
        COMPREPLY=($(compgen -W "$flags --json --schema-from --schema" -- "$cur"))
        return
    fi
    _filedir
}
complete -F _ckpt ckpt
