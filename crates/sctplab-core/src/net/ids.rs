//! Typed indices into the world's arenas. A plain `u32` is easy to mix up between
//! arenas; a newtype per arena makes that a compile error.

macro_rules! index_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);

        impl $name {
            pub fn idx(self) -> usize {
                self.0 as usize
            }
            pub fn from_idx(i: usize) -> Self {
                $name(u32::try_from(i).expect("arena index fits in u32"))
            }
        }
    };
}

index_type!(
    /// A node (host or router).
    NodeId
);
index_type!(
    /// A network interface: one end of a point-to-point link.
    IfaceId
);
index_type!(
    /// One direction of a full-duplex link, with its own queue and loss model.
    LinkDirId
);
index_type!(
    /// A scenario flow (traffic between two endpoints).
    FlowId
);
index_type!(
    /// A protocol endpoint (sender or receiver half of a flow).
    EndpointId
);
index_type!(
    /// A slot in the packet pool.
    PacketId
);
