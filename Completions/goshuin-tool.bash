# bash completion for goshuin-tool                             -*- shell-script -*-
#
# Install: source this file, or copy it to
#   ${XDG_DATA_HOME:-~/.local/share}/bash-completion/completions/goshuin-tool
#
# Keep in step with each command's CommandSpec (Sources/goshuin-tool/): the commands,
# help topics and options here are checked against them (DeclarationsTests).

# _goshuin_tool_reply COMPGEN-ARGUMENTS...: COMPREPLY += compgen's matches, one per line,
# so that names with spaces stay whole.
_goshuin_tool_reply() {
    local match
    while IFS= read -r match; do
        COMPREPLY+=("$match")
    done < <(compgen "$@")
}

_goshuin_tool() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev= prefix=
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    COMPREPLY=()

    # '--name=value': bash splits it at '=' (COMP_WORDBREAKS), or leaves it whole.
    if [[ $cur == = ]]; then
        cur=
    elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    elif [[ $cur == --*=* ]]; then
        prefix=${cur%%=*}=
        prev=${cur%%=*}
        cur=${cur#*=}
    fi

    # The command itself.
    if ((COMP_CWORD == 1)); then
        if [[ $cur == -* ]]; then
            _goshuin_tool_reply -W '--version --help -h' -- "$cur"
        else
            _goshuin_tool_reply -W 'seal open verify protect repair rescue rekey inspect check help' -- "$cur"
        fi
        return
    fi

    local command=${COMP_WORDS[1]}
    local -a options
    case $command in
    seal)
        options=(-o --output --format --iterations --chunk-size --leave-out-unsupported --recovery --passphrase-file
            --passphrase-fd --force -q --quiet --json -h --help)
        ;;
    open)
        options=(-o --output --extract --salvage --passphrase-file --passphrase-fd --force -q --quiet --json -h --help)
        ;;
    verify)
        options=(--backup --recovery --passphrase-file --passphrase-fd -q --quiet --json -h --help)
        ;;
    protect)
        options=(--redundancy --force -q --quiet --json -h --help)
        ;;
    repair)
        options=(-o --output --in-place --recovery --force -q --quiet --json -h --help)
        ;;
    rescue)
        options=(-o --output --new-passphrase-file --new-passphrase-fd --ask-new-passphrase --iterations
            --passphrase-file --passphrase-fd --force -q --quiet --json -h --help)
        ;;
    rekey)
        options=(-o --output --new-passphrase-file --new-passphrase-fd --format --iterations --passphrase-file
            --passphrase-fd --force -q --quiet --json -h --help)
        ;;
    inspect)
        options=(--list --passphrase-file --passphrase-fd --json -h --help)
        ;;
    check)
        options=(--json -h --help)
        ;;
    help)
        ((COMP_CWORD == 2)) && _goshuin_tool_reply -W 'seal open verify protect repair rescue rekey inspect check exit-codes' -- "$cur"
        return
        ;;
    *)
        return
        ;;
    esac

    # The value of an option of this command.
    if [[ " ${options[*]} " == *" $prev "* ]]; then
        case $prev in
        --extract)
            compopt -o filenames 2>/dev/null
            _goshuin_tool_reply -d -- "$cur"
            [[ -n $prefix ]] && COMPREPLY=("${COMPREPLY[@]/#/$prefix}")
            return
            ;;
        -o | --output | --passphrase-file | --new-passphrase-file)
            compopt -o filenames 2>/dev/null
            _goshuin_tool_reply -f -- "$cur"
            [[ -n $prefix ]] && COMPREPLY=("${COMPREPLY[@]/#/$prefix}")
            return
            ;;
        --recovery)
            if [[ $command == seal ]]; then
                _goshuin_tool_reply -W '5% 10% 20%' -- "$cur"
                return
            fi
            compopt -o filenames 2>/dev/null
            _goshuin_tool_reply -f -X '!*.par2' -- "$cur"
            _goshuin_tool_reply -d -- "$cur"
            [[ -n $prefix ]] && COMPREPLY=("${COMPREPLY[@]/#/$prefix}")
            return
            ;;
        --format)
            _goshuin_tool_reply -W '1 2' -- "$cur"
            return
            ;;
        --redundancy)
            _goshuin_tool_reply -W '5% 10% 20%' -- "$cur"
            return
            ;;
        --iterations | --chunk-size | --passphrase-fd | --new-passphrase-fd)
            # A number (N) or a size such as 4MiB: nothing to complete.
            return
            ;;
        esac
    fi

    # The options already given (each is accepted once); after '--' every word is an argument.
    local i end_of_options= used=' '
    for ((i = 2; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        --) end_of_options=1 ;;
        -o | --output) used+='-o --output ' ;;
        -q | --quiet) used+='-q --quiet ' ;;
        -h | --help) used+='-h --help ' ;;
        -*) used+="${COMP_WORDS[i]} " ;;
        esac
    done

    if [[ $cur == -* && -z $end_of_options ]]; then
        local option remaining=()
        for option in "${options[@]}"; do
            [[ $used == *" $option "* ]] && continue
            # --passphrase-file and --passphrase-fd exclude each other, and so do the new passphrase's sources.
            [[ $option == --passphrase-f* && $used == *' --passphrase-f'* ]] && continue
            [[ $option == --new-passphrase-f* && $used == *' --new-passphrase-f'* ]] && continue
            [[ $option == --ask-new-passphrase && $used == *' --new-passphrase-f'* ]] && continue
            [[ $option == --new-passphrase-f* && $used == *' --ask-new-passphrase '* ]] && continue
            remaining+=("$option")
        done
        _goshuin_tool_reply -W "${remaining[*]}" -- "$cur"
        return
    fi

    compopt -o filenames 2>/dev/null
    case $command in
    seal) # INPUT: any file, or - for standard input
        _goshuin_tool_reply -f -- "$cur"
        ;;
    open | verify | inspect | repair | rescue | rekey) # INPUT.goshuin: .goshuin files (and directories) first, else any file
        _goshuin_tool_reply -f -X '!*.goshuin' -- "$cur"
        _goshuin_tool_reply -d -- "$cur"
        ((${#COMPREPLY[@]})) || _goshuin_tool_reply -f -- "$cur"
        ;;
    protect) # FILE: any file, .goshuin files first
        _goshuin_tool_reply -f -X '!*.goshuin' -- "$cur"
        _goshuin_tool_reply -d -- "$cur"
        ((${#COMPREPLY[@]})) || _goshuin_tool_reply -f -- "$cur"
        ;;
    check) # PATH...: directories of vectors, or one vector's .json file
        _goshuin_tool_reply -d -- "$cur"
        _goshuin_tool_reply -f -X '!*.json' -- "$cur"
        ;;
    esac
} &&
    complete -F _goshuin_tool goshuin-tool

# ex: filetype=sh
