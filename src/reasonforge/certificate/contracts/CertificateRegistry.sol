// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import "./Verifier.sol"; // generated from the circuit's verification key (reasonforge.certificate.solidity)

/// @title ReasonForge certificate registry: stores a certificate only after its Groth16 proof verifies.
/// @dev Public inputs are recomputed here from the stored fields, so the stored metadata cannot
///      disagree with what the proofs attest. Layout of `packed` mirrors params.py PACK_LAYOUT;
///      the segment links mirror witness.segment_task_input.
contract CertificateRegistry {
    struct Certificate {
        bytes32 taskHash;         // sha256 of {original_query, reasoning_chain}
        bytes32 verdictCommitment; // Poseidon commitment of the last segment (the accumulator)
        bytes32 validatorRoot;    // root of the quaternary Poseidon tree of the validator set
        uint8 domain;             // 0=mathematics, 1=code, 2=logic
        uint8 proofLevel;         // 0=formal, 1=standard, 2=quick
        uint16 totalSteps;
        uint16 verifiedSteps;
        uint8 verdict;            // 0=VERIFIED, 1=PARTIAL, 2=FAILED
        uint8 validatorCount;
        uint8 validatorThreshold;
        uint64 timestamp;
        uint64 stakeThreshold;
        uint8 segments;           // number of linked proofs; set by the contract
        address registrant;       // set by the contract to msg.sender
    }

    /// One Groth16 proof over up to MAX_STEPS consecutive steps (chains longer than the circuit
    /// are a sequence of them, each committing to the one before; see publicInputs).
    struct Segment {
        bytes32 commitment;
        uint8 totalSteps;
        uint8 verifiedSteps;
        uint256[2] a;
        uint256[2][2] b;
        uint256[2] c;
    }

    Groth16Verifier public immutable verifier;
    address public immutable owner;

    mapping(bytes32 => Certificate) public certificates;   // certId => certificate
    mapping(bytes32 => bytes32) public certificateOfTask;  // taskHash => certId
    mapping(bytes32 => bytes32[]) internal segmentCommitments; // certId => every segment's commitment (when > 1)
    mapping(bytes32 => bool) public trustedRoots;          // validator sets whose signatures count
    uint256 public totalCertificates;
    uint256 public totalVerified;

    event CertificateRegistered(
        bytes32 indexed certificateId, bytes32 indexed taskHash, uint8 verdict, uint16 verifiedSteps, uint16 totalSteps
    );
    event ValidatorRootSet(bytes32 indexed root, bool trusted);

    error CertificateExists(bytes32 certId);
    error TaskAlreadyCertified(bytes32 taskHash, bytes32 certId);
    error UntrustedValidatorRoot(bytes32 root);
    error InconsistentVerdict();
    error InconsistentSegments();
    error InvalidProof(uint256 segment);
    error NotOwner();

    constructor(address verifier_, bytes32 initialRoot) {
        verifier = Groth16Verifier(verifier_);
        owner = msg.sender;
        trustedRoots[initialRoot] = true;
        emit ValidatorRootSet(initialRoot, true);
    }

    /// @notice Trust or distrust a validator set root (governance of who may attest).
    function setValidatorRoot(bytes32 root, bool trusted) external {
        if (msg.sender != owner) revert NotOwner();
        trustedRoots[root] = trusted;
        emit ValidatorRootSet(root, trusted);
    }

    /// @notice The task input segment `index` proves: the task hash for the first segment, then a
    ///         link sha256(taskHash, previous segment's commitment, index), top 248 bits.
    function segmentTaskInput(bytes32 taskHash, bytes32 previous, uint256 index) public pure returns (uint256) {
        if (index == 0) return uint256(taskHash) >> 8; // top 248 bits: always a field element
        return uint256(sha256(abi.encodePacked(taskHash, previous, index))) >> 8;
    }

    /// @notice The four public inputs one segment's proof must satisfy for this certificate.
    function publicInputs(Certificate calldata cert, Segment calldata seg, uint256 taskInput)
        public
        pure
        returns (uint256[4] memory input)
    {
        input[0] = taskInput;
        input[1] = uint256(seg.commitment);
        input[2] = uint256(cert.validatorRoot);
        input[3] = uint256(seg.verifiedSteps) | (uint256(seg.totalSteps) << 8)
            | (uint256(cert.validatorCount) << 16) | (uint256(cert.validatorThreshold) << 24)
            | (uint256(cert.timestamp) << 32) | (uint256(cert.stakeThreshold) << 96);
    }

    /// @notice Register a certificate; reverts unless every segment's proof verifies for exactly
    ///         these fields and the segments chain from the task hash to verdictCommitment.
    function registerCertificate(bytes32 certId, Certificate calldata cert, Segment[] calldata segments) external {
        if (certificates[certId].timestamp != 0) revert CertificateExists(certId);
        bytes32 existing = certificateOfTask[cert.taskHash];
        if (existing != bytes32(0)) revert TaskAlreadyCertified(cert.taskHash, existing);
        if (!trustedRoots[cert.validatorRoot]) revert UntrustedValidatorRoot(cert.validatorRoot);
        uint8 expected = cert.verifiedSteps == cert.totalSteps ? 0 : (cert.verifiedSteps == 0 ? 2 : 1);
        if (cert.verdict != expected || cert.timestamp == 0) revert InconsistentVerdict();
        uint256 n = segments.length;
        if (n == 0 || n > type(uint8).max || segments[n - 1].commitment != cert.verdictCommitment) {
            revert InconsistentSegments();
        }

        uint256 total;
        uint256 verified;
        bytes32 previous;
        for (uint256 i = 0; i < n; i++) {
            Segment calldata seg = segments[i];
            uint256[4] memory input = publicInputs(cert, seg, segmentTaskInput(cert.taskHash, previous, i));
            if (!verifier.verifyProof(seg.a, seg.b, seg.c, input)) revert InvalidProof(i);
            total += seg.totalSteps;
            verified += seg.verifiedSteps;
            previous = seg.commitment;
        }
        if (total != cert.totalSteps || verified != cert.verifiedSteps) revert InconsistentSegments();

        Certificate memory stored = cert;
        stored.segments = uint8(n);
        stored.registrant = msg.sender;
        certificates[certId] = stored;
        certificateOfTask[cert.taskHash] = certId;
        if (n > 1) {
            for (uint256 i = 0; i < n; i++) {
                segmentCommitments[certId].push(segments[i].commitment);
            }
        }
        totalCertificates++;
        if (cert.verdict == 0) totalVerified++;
        emit CertificateRegistered(certId, cert.taskHash, cert.verdict, cert.verifiedSteps, cert.totalSteps);
    }

    /// @notice Every segment's commitment, in order (a single-proof certificate's is verdictCommitment).
    function segmentCommitmentsOf(bytes32 certId) external view returns (bytes32[] memory) {
        if (certificates[certId].segments == 1) {
            bytes32[] memory single = new bytes32[](1);
            single[0] = certificates[certId].verdictCommitment;
            return single;
        }
        return segmentCommitments[certId];
    }

    /// @notice True if the task has a registered certificate whose verdict is VERIFIED.
    function isVerified(bytes32 taskHash) external view returns (bool) {
        bytes32 certId = certificateOfTask[taskHash];
        return certId != bytes32(0) && certificates[certId].verdict == 0;
    }

    /// @notice True if the certificate was registered (its proofs verified on registration).
    function verifyCertificate(bytes32 certId) external view returns (bool) {
        return certificates[certId].timestamp != 0;
    }
}
