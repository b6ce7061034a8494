package org.roce4j.verbs;

import java.util.EnumSet;
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

    public static SendWr send(long wrId, Mr mr, long offset, int length) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.SEND).sge(mr, offset, length).signaled(true);
    }

    public static SendWr sendWithImm(long wrId, Mr mr, long offset, int length, int immData) {
        return send(wrId, mr, offset, length).opcode(WrOpcode.SEND_WITH_IMM).immData(immData);
    }

    public static SendWr rdmaWrite(long wrId, Mr mr, long offset, int length, long remoteAddr, int rkey) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.RDMA_WRITE).sge(mr, offset, length)
                .remote(remoteAddr, rkey).signaled(true);
    }

    public static SendWr rdmaRead(long wrId, Mr mr, long offset, int length, long remoteAddr, int rkey) {
        return rdmaWrite(wrId, mr, offset, length, remoteAddr, rkey).opcode(WrOpcode.RDMA_READ);
    }

    /** An 8-byte FETCH_AND_ADD at {@code remoteAddr}; the original value lands in {@code mr} at {@code offset}. */
    public static SendWr fetchAndAdd(long wrId, Mr mr, long offset, long remoteAddr, int rkey, long add) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sge(mr, offset, 8)
                .remote(remoteAddr, rkey).compareAdd(add).signaled(true);
    }

    /** An 8-byte CMP_AND_SWP at {@code remoteAddr}; the original value lands in {@code mr} at {@code offset}. */
    public static SendWr compareAndSwap(long wrId, Mr mr, long offset, long remoteAddr, int rkey,
                                        long compare, long swapWith) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).sge(mr, offset, 8)
                .remote(remoteAddr, rkey).compareAdd(compare).swap(swapWith).signaled(true);
    }

    public long wrId() { return wrId; }
    public WrOpcode opcode() { return opcode; }
    /** The {@link SendFlag} bits. */
    public int sendFlags() { return sendFlags; }
    public ScatterGatherList sgList() { return sgList; }
    public int immData() { return immData; }
    public int invalidateRkey() { return invalidateRkey; }
    public long remoteAddr() { return remoteAddr; }
    public int rkey() { return rkey; }
    /** The compare value of CMP_AND_SWP, or the addend of FETCH_AND_ADD. */
    public long compareAdd() { return compareAdd; }
    public long swap() { return swap; }
    public Ah ah() { return ah; }
    public int remoteQpn() { return remoteQpn; }
    public int remoteQkey() { return remoteQkey; }

    public boolean has(SendFlag flag) {
        return flag.isSetIn(sendFlags);
    }

    public Set<SendFlag> flags() {
        EnumSet<SendFlag> flags = EnumSet.noneOf(SendFlag.class);
        for (SendFlag flag : SendFlag.values()) {
            if (flag.isSetIn(sendFlags)) {
                flags.add(flag);
            }
        }
        return flags;
    }

    public SendWr wrId(long id) { wrId = id; return this; }
    public SendWr opcode(WrOpcode op) { opcode = op; return this; }
    public SendWr sendFlags(int bits) { sendFlags = bits; return this; }
    public SendWr signaled(boolean on) { return flag(SendFlag.SIGNALED, on); }
    public SendWr solicited(boolean on) { return flag(SendFlag.SOLICITED, on); }
    public SendWr inline(boolean on) { return flag(SendFlag.INLINE, on); }
    public SendWr fence(boolean on) { return flag(SendFlag.FENCE, on); }
    public SendWr sge(long address, int length, int lkey) { sgList.add(address, length, lkey); return this; }
    public SendWr sge(Mr mr, long offset, int length) { sgList.add(mr, offset, length); return this; }
    public SendWr immData(int value) { immData = value; return this; }
    public SendWr invalidateRkey(int key) { invalidateRkey = key; return this; }
    public SendWr remote(long address, int key) { remoteAddr = address; rkey = key; return this; }
    public SendWr compareAdd(long value) { compareAdd = value; return this; }
    public SendWr swap(long value) { swap = value; return this; }
    /** The UD destination: address handle, remote QPN and Q_Key. */
    public SendWr ud(Ah handle, int qpn, int qkey) { ah = handle; remoteQpn = qpn; remoteQkey = qkey; return this; }

    /** Clears every field for reuse; keeps the SGE arrays' capacity. */
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
                        ? ", remote_addr=0x" + Long.toHexString(remoteAddr) + ", rkey=0x" + Integer.toHexString(rkey)
                        : "")
                + (ah != null ? ", remote_qpn=" + remoteQpn + ", remote_qkey=0x" + Integer.toHexString(remoteQkey) : "")
                + "}";
    }
}
