"""numba intrinsics for the MCCFR tables and kernel: atomics, arrays without reference
counting, prefetch."""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def compare_and_swap(typingctx, array, index, expected, new):
    """Atomically: old = array[index]; if old == expected: array[index] = new; return old."""
    signature = types.int64(array, types.intp, types.int64, types.int64)

    def codegen(context, builder, sig, args):
        array_value, index_value, expected_value, new_value = args
        view = context.make_array(sig.args[0])(context, builder, array_value)
        pointer = cgutils.get_item_pointer(context, builder, sig.args[0], view, [index_value])
        result = builder.cmpxchg(pointer, expected_value, new_value, "seq_cst", "seq_cst")
        return builder.extract_value(result, 0)

    return signature, codegen


@intrinsic
def fetch_add(typingctx, array, index, value):
    """Atomically: old = array[index]; array[index] += value; return old."""
    signature = types.int64(array, types.intp, types.int64)

    def codegen(context, builder, sig, args):
        array_value, index_value, add_value = args
        view = context.make_array(sig.args[0])(context, builder, array_value)
        pointer = cgutils.get_item_pointer(context, builder, sig.args[0], view, [index_value])
        return builder.atomic_rmw("add", pointer, add_value, "seq_cst")

    return signature, codegen


@intrinsic
def unmanaged(typingctx, array):
    """The same array without reference counting (its meminfo is null): numba increfs and
    decrefs an array, atomically, at every view and every call it is passed to, and the
    traversal spent about half its time doing that. The caller keeps the owner alive."""
    if not isinstance(array, types.Array):
        return None

    def codegen(context, builder, sig, args):
        source = context.make_array(sig.args[0])(context, builder, args[0])
        view = context.make_array(sig.return_type)(context, builder)
        for field in ("nitems", "itemsize", "data", "shape", "strides"):
            setattr(view, field, getattr(source, field))
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        return view._getvalue()

    return array(array), codegen


@intrinsic
def prefetch(typingctx, array, index):
    """Hint that array[index] is about to be read and written (llvm.prefetch)."""
    signature = types.void(array, types.intp)

    def codegen(context, builder, sig, args):
        view = context.make_array(sig.args[0])(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, sig.args[0], view, [args[1]])
        byte_pointer = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32]),
            "llvm.prefetch.p0")
        # write access, high temporal locality, data cache
        builder.call(function, [builder.bitcast(pointer, byte_pointer), i32(1), i32(3),
                                i32(1)])
        return context.get_dummy_value()

    return signature, codegen
