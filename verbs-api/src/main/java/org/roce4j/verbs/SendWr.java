package org.roce4j.verbs;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * A send work request: {@code struct ibv_send_wr} with its {@code wr.rdma}, {@code wr.atomic} and
 * {@code wr.ud} unions flattened. Mutable and reusable: a backend copies what it needs at post
 * time, so one object can be refilled and posted again without allocating (the role {@code ibv_qp_ex}
 * plays in C). The static factories are the friendly way to build one-off requests.
 */
public final class SendWr {
    private long wrId;
    private WrOpcode opcode = WrOpcode.SEND;
    private int sendFlags;
    private final ScatterGatherList sgList = new ScatterGatherList();
    private int immData;
    private int invalidateRkey;
    private long remoteAddr;
    private int rkey;
    private long compareAdd;
    private long swap;
    private Ah ah;
    private int remoteQpn;
    private int remoteQkey;
    private Mw mw;
    private int bindRkey;
    private MwBindInfo bindInfo;

    /** An empty request (a SEND with wr_id 0, no SGE, no flags) to fill in, post, and reuse. */
    public SendWr() {
    }

    /**
     * {@return a signaled SEND of {@code length} bytes at {@code offset} of {@code mr}}
     *
     * @param wrId   the wr_id its completion carries
     * @param mr     the registered region the bytes come from
     * @param offset where in the region they start
     * @param length how many bytes
     */
    public static SendWr send(long wrId, Mr mr, long offset, int length) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.SEND).sge(mr, offset, length).signaled(true);
    }

    /**
     * {@return a signaled SEND_WITH_IMM: a SEND whose receive completion carries {@code immData}}
     *
     * @param wrId    the wr_id its completion carries
     * @param mr      the registered region the bytes come from
     * @param offset  where in the region they start
     * @param length  how many bytes
     * @param immData the 32-bit immediate value
     */
    public static SendWr sendWithImm(long wrId, Mr mr, long offset, int length, int immData) {
        return send(wrId, mr, offset, length).opcode(WrOpcode.SEND_WITH_IMM).immData(immData);
    }

    /**
     * {@return a signaled RDMA_WRITE of {@code length} bytes to {@code remoteAddr} under {@code rkey}}
     *
     * @param wrId       the wr_id its completion carries
     * @param mr         the registered region the bytes come from
     * @param offset     where in the region they start
     * @param length     how many bytes
     * @param remoteAddr the peer's virtual address to write to
     * @param rkey       the peer region's rkey
     */
    public static SendWr rdmaWrite(long wrId, Mr mr, long offset, int length, long remoteAddr, int rkey) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.RDMA_WRITE).sge(mr, offset, length)
                .remote(remoteAddr, rkey).signaled(true);
    }

    /**
     * {@return a signaled RDMA_READ of {@code length} bytes from {@code remoteAddr} into {@code mr} at {@code offset}}
     *
     * @param wrId       the wr_id its completion carries
     * @param mr         the registered region the bytes land in (LOCAL_WRITE)
     * @param offset     where in the region they land
     * @param length     how many bytes
     * @param remoteAddr the peer's virtual address to read from
     * @param rkey       the peer region's rkey
     */
    public static SendWr rdmaRead(long wrId, Mr mr, long offset, int length, long remoteAddr, int rkey) {
        return rdmaWrite(wrId, mr, offset, length, remoteAddr, rkey).opcode(WrOpcode.RDMA_READ);
    }

    /**
     * {@return a signaled 8-byte ATOMIC_FETCH_AND_ADD at {@code remoteAddr}; the original value lands in {@code mr} at {@code offset}}
     *
     * @param wrId       the wr_id its completion carries
     * @param mr         the registered region the original value lands in (LOCAL_WRITE)
     * @param offset     where in the region (8 bytes)
     * @param remoteAddr the peer's 8-byte aligned address
     * @param rkey       the peer region's rkey (REMOTE_ATOMIC)
     * @param add        what to add
     */
    public static SendWr fetchAndAdd(long wrId, Mr mr, long offset, long remoteAddr, int rkey, long add) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sge(mr, offset, 8)
                .remote(remoteAddr, rkey).compareAdd(add).signaled(true);
    }

    /**
     * {@return a signaled 8-byte ATOMIC_CMP_AND_SWP at {@code remoteAddr}; the original value lands in {@code mr} at {@code offset}}
     *
     * @param wrId       the wr_id its completion carries
     * @param mr         the registered region the original value lands in (LOCAL_WRITE)
     * @param offset     where in the region (8 bytes)
     * @param remoteAddr the peer's 8-byte aligned address
     * @param rkey       the peer region's rkey (REMOTE_ATOMIC)
     * @param compare    the value the peer's word must have
     * @param swapWith   what it becomes then
     */
    public static SendWr compareAndSwap(long wrId, Mr mr, long offset, long remoteAddr, int rkey,
                                        long compare, long swapWith) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).sge(mr, offset, 8)
                .remote(remoteAddr, rkey).compareAdd(compare).swap(swapWith).signaled(true);
    }

    /**
     * {@return a signaled BIND_MW of a type 2 window: {@code mw} gets the key byte of {@code rkey} and the
     * range and rights of {@code bindInfo}, and is then usable only through the QP that posts this}
     *
     * @param wrId     the wr_id its completion carries
     * @param mw       the window (its rkey as the device last gave it)
     * @param rkey     the window's new rkey: its low 8 bits are taken ({@link Mw#incRkey})
     * @param bindInfo the region, range and rights
     */
    public static SendWr bindMw(long wrId, Mw mw, int rkey, MwBindInfo bindInfo) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.BIND_MW).bindMw(mw, rkey, bindInfo).signaled(true);
    }

    /**
     * {@return a signaled LOCAL_INV of {@code rkey}: a type 2 window's, or a region's the device can invalidate}
     *
     * @param wrId the wr_id its completion carries
     * @param rkey the key to invalidate
     */
    public static SendWr localInv(long wrId, int rkey) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.LOCAL_INV).invalidateRkey(rkey).signaled(true);
    }

    /** {@return the wr_id: what the completion of this request carries ({@code wr_id})} */
    public long wrId() { return wrId; }
    /** {@return the operation ({@code opcode})} */
    public WrOpcode opcode() { return opcode; }
    /** {@return the {@link SendFlag} bits ({@code send_flags})} */
    public int sendFlags() { return sendFlags; }
    /** {@return the local buffers: the scatter/gather list ({@code sg_list}, {@code num_sge})} */
    public ScatterGatherList sgList() { return sgList; }
    /** {@return the immediate value of SEND_WITH_IMM and RDMA_WRITE_WITH_IMM ({@code imm_data})} */
    public int immData() { return immData; }
    /**
     * {@return the rkey SEND_WITH_INV invalidates at the responder, or LOCAL_INV locally ({@code invalidate_rkey})}
     */
    public int invalidateRkey() { return invalidateRkey; }
    /**
     * {@return the peer address of RDMA and atomic operations ({@code wr.rdma.remote_addr}, {@code wr.atomic.remote_addr})}
     */
    public long remoteAddr() { return remoteAddr; }
    /** {@return the peer region's key of RDMA and atomic operations ({@code wr.rdma.rkey}, {@code wr.atomic.rkey})} */
    public int rkey() { return rkey; }
    /** {@return the compare value of CMP_AND_SWP, or the addend of FETCH_AND_ADD ({@code wr.atomic.compare_add})} */
    public long compareAdd() { return compareAdd; }
    /** {@return the value CMP_AND_SWP writes when the compare matches ({@code wr.atomic.swap})} */
    public long swap() { return swap; }
    /** {@return the UD destination's address handle, or null ({@code wr.ud.ah})} */
    public Ah ah() { return ah; }
    /** {@return the UD destination QP number ({@code wr.ud.remote_qpn})} */
    public int remoteQpn() { return remoteQpn; }
    /** {@return the Q_Key of UD sends ({@code wr.ud.remote_qkey})} */
    public int remoteQkey() { return remoteQkey; }
    /** {@return the window a BIND_MW binds, or null ({@code bind_mw.mw})} */
    public Mw mw() { return mw; }
    /** {@return the new rkey of a BIND_MW, whose low 8 bits the window takes ({@code bind_mw.rkey})} */
    public int bindRkey() { return bindRkey; }
    /** {@return what a BIND_MW binds the window to, or null ({@code bind_mw.bind_info})} */
    public MwBindInfo bindInfo() { return bindInfo; }

    /**
     * {@return whether {@code flag} is set}
     *
     * @param flag the flag
     */
    public boolean has(SendFlag flag) {
        return flag.isSetIn(sendFlags);
    }

    /** {@return the flags set, as a set} */
    public Set<SendFlag> flags() {
        EnumSet<SendFlag> flags = EnumSet.noneOf(SendFlag.class);
        for (SendFlag flag : SendFlag.values()) {
            if (flag.isSetIn(sendFlags)) {
                flags.add(flag);
            }
        }
        return flags;
    }

    /**
     * {@return this request, with its wr_id set}
     *
     * @param id the wr_id its completion will carry
     */
    public SendWr wrId(long id) { wrId = id; return this; }
    /**
     * {@return this request, with its operation set}
     *
     * @param op the operation
     */
    public SendWr opcode(WrOpcode op) { opcode = Objects.requireNonNull(op, "op"); return this; }
    /**
     * {@return this request, with all its flags set at once}
     *
     * @param bits {@link SendFlag} bits
     */
    public SendWr sendFlags(int bits) { sendFlags = bits; return this; }
    /**
     * {@return this request, SIGNALED or not: whether it generates a completion ({@code IBV_SEND_SIGNALED})}
     *
     * @param on true for a completion
     */
    public SendWr signaled(boolean on) { return flag(SendFlag.SIGNALED, on); }
    /**
     * {@return this request, SOLICITED or not: whether it wakes a receiver armed for solicited events ({@code IBV_SEND_SOLICITED})}
     *
     * @param on true to set the flag
     */
    public SendWr solicited(boolean on) { return flag(SendFlag.SOLICITED, on); }
    /**
     * {@return this request, INLINE or not: whether the data is copied at post time ({@code IBV_SEND_INLINE})}
     *
     * @param on true to set the flag
     */
    public SendWr inline(boolean on) { return flag(SendFlag.INLINE, on); }
    /**
     * {@return this request, FENCE or not: whether it waits for earlier READs and atomics ({@code IBV_SEND_FENCE})}
     *
     * @param on true to set the flag
     */
    public SendWr fence(boolean on) { return flag(SendFlag.FENCE, on); }
    /**
     * {@return this request, with one more SGE}
     *
     * @param address the buffer's virtual address
     * @param length  its length
     * @param lkey    the lkey of the region it is in
     */
    public SendWr sge(long address, int length, int lkey) { sgList.add(address, length, lkey); return this; }
    /**
     * {@return this request, with one more SGE: {@code length} bytes at {@code offset} of {@code mr}}
     *
     * @param mr     the registered region
     * @param offset where in it
     * @param length how many bytes
     */
    public SendWr sge(Mr mr, long offset, int length) { sgList.add(mr, offset, length); return this; }
    /**
     * {@return this request, with its immediate value set}
     *
     * @param value the 32-bit immediate data
     */
    public SendWr immData(int value) { immData = value; return this; }
    /**
     * {@return this request, with the rkey to invalidate set (SEND_WITH_INV, LOCAL_INV)}
     *
     * @param key the rkey
     */
    public SendWr invalidateRkey(int key) { invalidateRkey = key; return this; }
    /**
     * {@return this request, with the peer address and rkey of an RDMA or atomic operation set}
     *
     * @param address the peer's virtual address
     * @param key     the peer region's rkey
     */
    public SendWr remote(long address, int key) { remoteAddr = address; rkey = key; return this; }
    /**
     * {@return this request, with the compare value (CMP_AND_SWP) or addend (FETCH_AND_ADD) set}
     *
     * @param value the value
     */
    public SendWr compareAdd(long value) { compareAdd = value; return this; }
    /**
     * {@return this request, with the swap value of CMP_AND_SWP set}
     *
     * @param value the value
     */
    public SendWr swap(long value) { swap = value; return this; }
    /**
     * {@return this request, with its UD destination set: address handle, remote QPN and Q_Key}
     *
     * @param ah   the address handle of the destination
     * @param qpn  the destination QP number
     * @param qkey the Q_Key
     */
    public SendWr ud(Ah ah, int qpn, int qkey) {
        this.ah = Objects.requireNonNull(ah, "ah");
        remoteQpn = qpn;
        remoteQkey = qkey;
        return this;
    }

    /**
     * {@return this request, with the window, new rkey and bind info of a BIND_MW set}
     *
     * @param window the window
     * @param rkey   its new rkey
     * @param info   the region, range and rights
     */
    public SendWr bindMw(Mw window, int rkey, MwBindInfo info) {
        mw = Objects.requireNonNull(window, "window");
        bindRkey = rkey;
        bindInfo = Objects.requireNonNull(info, "info");
        return this;
    }

    /** {@return this request, every field cleared for reuse (the SGE arrays keep their capacity)} */
    public SendWr reset() {
        wrId = 0;
        opcode = WrOpcode.SEND;
        sendFlags = 0;
        sgList.clear();
        immData = 0;
        invalidateRkey = 0;
        remoteAddr = 0;
        rkey = 0;
        compareAdd = 0;
        swap = 0;
        ah = null;
        remoteQpn = 0;
        remoteQkey = 0;
        mw = null;
        bindRkey = 0;
        bindInfo = null;
        return this;
    }

    private SendWr flag(SendFlag flag, boolean on) {
        sendFlags = on ? sendFlags | flag.bit() : sendFlags & ~flag.bit();
        return this;
    }

    @Override
    public String toString() {
        return "SendWr{wr_id=" + Long.toUnsignedString(wrId) + ", " + opcode + ", flags=" + flags()
                + ", sg_list=" + sgList
                + (opcode.targetsRemoteMemory()
                        ? ", remote_addr=0x" + Long.toHexString(remoteAddr) + ", rkey=" + NumberText.key(rkey)
                        : "")
                + (mw != null ? ", mw rkey=" + NumberText.key(mw.rkey()) + ", rkey="
                        + NumberText.key(bindRkey) + ", " + bindInfo : "")
                + (ah != null ? ", remote_qpn=" + NumberText.qpn(remoteQpn) + ", remote_qkey=" + NumberText.key(remoteQkey) : "")
                + "}";
    }
}
