// What both ns-3 programs share: a bulk sender on a socket the program made.
// Written for sctplab against the public ns-3.37 API.
#ifndef SCTPLAB_LAB_APP_H
#define SCTPLAB_LAB_APP_H

#include "ns3/application.h"
#include "ns3/packet.h"
#include "ns3/socket.h"

#include <algorithm>

namespace ns3
{

// Keeps the send buffer full from the connection's start, like ns-3's
// BulkSendApplication, but on a socket the program made (so it can be LabTcpSocket).
class BulkSender : public Application
{
  public:
    void Setup(Ptr<Socket> socket, Address peer)
    {
        m_socket = socket;
        m_peer = peer;
    }

  private:
    void StartApplication() override
    {
        m_socket->Bind();
        m_socket->Connect(m_peer);
        m_socket->SetConnectCallback(MakeCallback(&BulkSender::Connected, this),
                                     MakeNullCallback<void, Ptr<Socket>>());
        m_socket->SetSendCallback(MakeCallback(&BulkSender::Room, this));
    }

    void StopApplication() override
    {
    }

    void Connected(Ptr<Socket> s)
    {
        Fill(s);
    }

    void Room(Ptr<Socket> s, uint32_t)
    {
        Fill(s);
    }

    void Fill(Ptr<Socket> s)
    {
        while (s->GetTxAvailable() > 0)
        {
            uint32_t n = std::min<uint32_t>(s->GetTxAvailable(), 64 * 1024);
            if (s->Send(Create<Packet>(n)) < 0)
            {
                return;
            }
        }
    }

    Ptr<Socket> m_socket;
    Address m_peer;
};

} // namespace ns3

#endif
